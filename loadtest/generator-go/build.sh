#!/usr/bin/env bash
# Builds the load test's Go programs into loadtest/generator-go/bin/ (the
# generator, the echo host, the pipe-go relay) from a cache outside the clone
# keyed by every input (each .go file under here with its path, go.mod,
# go.sum, this file, the Go version), as wasm/build.sh keys the wasm client:
# a warm run only copies the binaries. Modules come from the Go module proxy
# into Go's own module cache (nothing is vendored). Without Go (≥ 1.22) it
# says so and succeeds: the load test then uses the Node generator and echo
# host, and runs no pipe-go.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${LANTERNA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lanterna}/generator-go
# binary name and the package it is built from
PROGRAMS=("lanterna-generator ." "lanterna-echo-host ./cmd/echo-host" "lanterna-pipe-relay ./cmd/pipe-relay")
log() { printf '[generator-go] %s\n' "$*" >&2; }

if ! command -v go >/dev/null; then
  log "go not found: not built (the load test uses the node generator and echo host)"
  exit 0
fi
GO_VERSION=$(go env GOVERSION)
KEY=$(
  cd "$HERE"
  {
    echo "$GO_VERSION"
    cat build.sh go.mod go.sum
    find . -name '*.go' -not -path './bin/*' | LC_ALL=C sort | while read -r file; do
      echo "$file"
      cat "$file"
    done
  } | sha256sum | cut -c1-16
)
BUILT=$CACHE/$KEY
mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock 9
mkdir -p "$HERE/bin"
for program in "${PROGRAMS[@]}"; do
  read -r name package <<<"$program"
  if [ ! -x "$BUILT/$name" ]; then
    log "building $name ($GO_VERSION, key $KEY)"
    mkdir -p "$BUILT"
    (cd "$HERE" && CGO_ENABLED=0 go build -trimpath -buildvcs=false -o "$BUILT/$name.tmp" "$package")
    mv "$BUILT/$name.tmp" "$BUILT/$name"
  fi
  if ! cmp -s "$BUILT/$name" "$HERE/bin/$name"; then
    cp "$BUILT/$name" "$HERE/bin/$name.tmp"
    mv "$HERE/bin/$name.tmp" "$HERE/bin/$name"
  fi
done
log "ready: $(printf '%s ' "${PROGRAMS[@]%% *}")in $HERE/bin"
