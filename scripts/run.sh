#!/usr/bin/env bash
# The product on its embedded defaults: gateway + demo presenter + display.
# Installs what is missing, builds, then runs until Ctrl-C. Options go to the demo
# (see: scripts/run.sh --help), e.g. --scene animation, --port 9443, --no-kiosk.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
bash scripts/setup.sh
bash scripts/build.sh >/dev/null
exec node demo/dist/cli.js "$@"
