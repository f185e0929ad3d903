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
# The Go modules' own tests (the load side's binaries and the native data
# plane are also driven by loadtest/dist and gateway/test/dist tests).
if command -v go >/dev/null; then
  for module in loadtest/generator-go gateway/dataplane; do
    echo "[test] go vet + go test ($module)"
    (cd "$module" && go vet ./... && go test ./...)
  done
fi
exec node scripts/run-tests.mjs "$@"
