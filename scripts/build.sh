#!/usr/bin/env bash
# Builds every workspace (TypeScript project references).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
echo "[build] tsc -b"
npx --no-install tsc -b
npm run -s build -w web
