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
# The Go load side's own tests (its binaries are also driven by loadtest/dist/*.test.js).
if command -v go >/dev/null; then
  echo "[test] go vet + go test (loadtest/generator-go)"
  (cd loadtest/generator-go && go vet ./... && go test ./...)
fi
exec node scripts/run-tests.mjs "$@"
