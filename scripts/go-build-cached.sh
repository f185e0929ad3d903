#!/usr/bin/env bash
# Builds a Go module's programs into <module>/bin/ from a cache outside the
# clone keyed by every input (each .go file with its path, go.mod, go.sum,
# this file, the Go version, and the same of every module go.mod replaces
# with a local folder), as wasm/build.sh keys the wasm client: a warm
# run only copies the binaries. Modules come from the Go module proxy into
# Go's own module cache (nothing is vendored). Without Go it says so and
# exits 3, so the caller decides whether that is fatal.
#   go-build-cached.sh <module dir> <cache name> "<binary> <package>"...
set -euo pipefail
MODULE=$(cd "$1" && pwd)
CACHE=${LANTERNA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lanterna}/$2
shift 2
PROGRAMS=("$@")
SELF=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")
log() { printf '[%s] %s\n' "$(basename "$CACHE")" "$*" >&2; }

if ! command -v go >/dev/null; then
  log "go not found: not built"
  exit 3
fi
GO_VERSION=$(go env GOVERSION)
module_inputs() {
  cat go.mod
  [ -f go.sum ] && cat go.sum
  find . -name '*.go' -not -path './bin/*' | LC_ALL=C sort | while read -r file; do
    echo "$file"
    cat "$file"
  done
}
# replace directives to ./ or ../ folders (the load side's use of the data plane's rawsocket)
LOCAL_REPLACES=$(cd "$MODULE" && go mod edit -json | sed -n 's/^[[:space:]]*"Path": "\(\.\.\{0,1\}\/[^"]*\)".*/\1/p')
KEY=$(
  cd "$MODULE"
  {
    echo "$GO_VERSION"
    cat "$SELF"
    module_inputs
    for replaced in $LOCAL_REPLACES; do
      echo "replace $replaced"
      (cd "$replaced" && module_inputs)
    done
  } | sha256sum | cut -c1-16
)
BUILT=$CACHE/$KEY
mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock 9
mkdir -p "$MODULE/bin"
for program in "${PROGRAMS[@]}"; do
  read -r name package <<<"$program"
  if [ ! -x "$BUILT/$name" ]; then
    log "building $name ($GO_VERSION, key $KEY)"
    mkdir -p "$BUILT"
    (cd "$MODULE" && CGO_ENABLED=0 go build -trimpath -buildvcs=false -o "$BUILT/$name.tmp" "$package")
    mv "$BUILT/$name.tmp" "$BUILT/$name"
  fi
  if ! cmp -s "$BUILT/$name" "$MODULE/bin/$name"; then
    cp "$BUILT/$name" "$MODULE/bin/$name.tmp"
    mv "$MODULE/bin/$name.tmp" "$MODULE/bin/$name"
  fi
done
log "ready: $(printf '%s ' "${PROGRAMS[@]%% *}")in $MODULE/bin"
