#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, lints, runs every test.
# Extra arguments filter test files by path substring (e.g. scripts/test.sh gateway).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
bash scripts/setup.sh
bash scripts/build.sh
echo "[test] eslint"
npx --no-install eslint --max-warnings=0 .
exec node scripts/run-tests.mjs "$@"
