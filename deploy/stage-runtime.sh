#!/usr/bin/env bash
# Assembles what the gateway image runs, from a built checkout (scripts/build.sh
# done), into OUT: the gateway and the protocol package (compiled, no tests),
# the native data plane's binary, the display page with the wasm client
# and the presenter page with its wasm RDP server (web/dist/public), the health check,
# and production node_modules for the gateway alone, installed from the
# repository's lock file (npm ci --omit=dev -w @lanterna/gateway).
# Usage: deploy/stage-runtime.sh OUT   (run from anywhere; OUT must not exist)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=${1:?usage: stage-runtime.sh OUT}
[ ! -e "$OUT" ] || { echo "[stage-runtime] error: $OUT exists" >&2; exit 1; }
for built in gateway/dist/cli.js gateway/dataplane/bin/lanterna-dataplane protocol/dist/index.js web/dist/public/display.html web/dist/public/wasm/build/lanterna-rdp.wasm web/dist/public/wasm/build/lanterna-presenter.wasm; do
  [ -f "$ROOT/$built" ] || { echo "[stage-runtime] error: $built missing (run scripts/build.sh)" >&2; exit 1; }
done

# The image builds the product alone (scripts/build.sh product): a test, test
# helper or fuzz target in dist/ means a full build's outputs are here, and
# none of it may ship.
stray=$(cd "$ROOT" && find gateway/dist protocol/dist \( -name '*.test.*' -o -name '*.test-helper.*' -o -path '*/dist/fuzz' \) -print -quit)
[ -z "$stray" ] || { echo "[stage-runtime] error: $stray is test code: build with 'scripts/build.sh product' in a clean tree" >&2; exit 1; }

mkdir -p "$OUT/gateway" "$OUT/protocol" "$OUT/web/dist" "$OUT/deploy"
cp "$ROOT/package.json" "$ROOT/package-lock.json" "$OUT/"
for ws in gateway protocol; do
  cp "$ROOT/$ws/package.json" "$OUT/$ws/"
  cp -r "$ROOT/$ws/dist" "$OUT/$ws/dist"
  # build bookkeeping is not the product
  find "$OUT/$ws/dist" \( -name '*.tsbuildinfo*' -o -name '*.map' \) -delete
done
# the native data plane (relay.engine "native"): static, no runtime of its own
install -D -m 0755 "$ROOT/gateway/dataplane/bin/lanterna-dataplane" "$OUT/gateway/dataplane/bin/lanterna-dataplane"
cp -r "$ROOT/web/dist/public" "$OUT/web/dist/public"
cp "$ROOT/deploy/healthcheck.mjs" "$OUT/deploy/"

# Only the gateway's dependencies (and the protocol package it links); the
# other workspaces' folders are absent, which npm accepts for a -w install.
(cd "$OUT" && npm ci --omit=dev --workspace @lanterna/gateway --ignore-scripts \
  --no-audit --no-fund --loglevel=error)
rm -f "$OUT/node_modules/.package-lock.json"
echo "[stage-runtime] $(du -sh "$OUT" | cut -f1) in $OUT (node_modules $(du -sh "$OUT/node_modules" | cut -f1))" >&2
