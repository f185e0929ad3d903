#!/usr/bin/env bash
# Runs the load test CLI with the open-file soft limit raised to the hard limit
# (each simulated display holds 2 sockets in the generator and 3 in the gateway).
set -euo pipefail
ulimit -n "$(ulimit -Hn)"
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
exec node "$HERE/dist/cli.js" "$@"
