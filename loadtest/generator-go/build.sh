#!/usr/bin/env bash
# Builds the Go load generator into loadtest/generator-go/bin/ from a cache
# outside the clone keyed by its inputs (sources, go.mod, go.sum, this file,
# the Go version), as wasm/build.sh keys the wasm client: a warm run only
# copies the binary. Modules come from the Go module proxy into Go's own
# module cache (nothing is vendored). Without Go (≥ 1.22) it says so and
# succeeds: the load test then uses the Node generator.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${LANTERNA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lanterna}/generator-go
OUT=$HERE/bin/lanterna-generator
log() { printf '[generator-go] %s\n' "$*" >&2; }

if ! command -v go >/dev/null; then
  log "go not found: not built (the load test uses the node generator)"
  exit 0
fi
GO_VERSION=$(go env GOVERSION)
KEY=$( { echo "$GO_VERSION"; cat "$HERE/build.sh" "$HERE/go.mod" "$HERE/go.sum" "$HERE"/*.go; } | sha256sum | cut -c1-16)
BUILT=$CACHE/$KEY/lanterna-generator
mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock 9
if [ ! -x "$BUILT" ]; then
  log "building ($GO_VERSION, key $KEY)"
  mkdir -p "$CACHE/$KEY"
  (cd "$HERE" && CGO_ENABLED=0 go build -trimpath -buildvcs=false -o "$BUILT.tmp" .)
  mv "$BUILT.tmp" "$BUILT"
fi
mkdir -p "$HERE/bin"
if ! cmp -s "$BUILT" "$OUT"; then
  cp "$BUILT" "$OUT.tmp"
  mv "$OUT.tmp" "$OUT"
fi
log "ready: $OUT"
