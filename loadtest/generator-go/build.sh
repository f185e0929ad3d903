#!/usr/bin/env bash
# Builds the load test's Go programs into loadtest/generator-go/bin/ (the
# generator, the echo host, the pipe-go relay), cached outside the clone by
# their inputs (scripts/go-build-cached.sh). Without Go it says so and
# succeeds: the load test then uses the Node generator and echo host, and
# runs no pipe-go.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
status=0
bash "$HERE/../../scripts/go-build-cached.sh" "$HERE" generator-go \
  "lanterna-generator ." "lanterna-echo-host ./cmd/echo-host" "lanterna-pipe-relay ./cmd/pipe-relay" || status=$?
if [ "$status" -eq 3 ]; then
  echo "[generator-go] the load test uses the node generator and echo host" >&2
  exit 0
fi
exit "$status"
