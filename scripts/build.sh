#!/usr/bin/env bash
# Builds every workspace (TypeScript project references).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
echo "[build] tsc -b"
npx --no-install tsc -b
echo "[build] go load generator, echo host and pipe-go relay (cached; skipped without Go)"
bash loadtest/generator-go/build.sh
echo "[build] native data plane (cached; skipped without Go)"
bash gateway/dataplane/build.sh
echo "[build] wasm (FreeRDP 3 client; cached, cold build ≈10 min)"
bash wasm/build.sh
npm run -s build -w web
