#!/usr/bin/env bash
# Builds every workspace (TypeScript project references).
#   scripts/build.sh           everything: products, tests, benches, the load side (CI, development)
#   scripts/build.sh product   what the gateway image runs: no test, lab, test kit or bench is
#                              compiled, so nothing has to be deleted from dist/ afterwards
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
MODE=${1:-all}
case $MODE in
  all) PROJECT=tsconfig.json ;;
  product) PROJECT=tsconfig.product.json ;;
  *) echo "[build] error: unknown mode '$MODE' (all | product)" >&2; exit 2 ;;
esac
echo "[build] tsc -b $PROJECT"
npx --no-install tsc -b "$PROJECT"
if [ "$MODE" = all ]; then
  echo "[build] go load generator, echo host and pipe-go relay (cached; skipped without Go)"
  bash loadtest/generator-go/build.sh
fi
echo "[build] native data plane (cached; skipped without Go)"
bash gateway/dataplane/build.sh
echo "[build] wasm (FreeRDP 3 client; cached, cold build ≈10 min)"
bash wasm/build.sh
if [ "$MODE" = all ]; then npm run -s build -w web; else npm run -s build -w web -- --product; fi
