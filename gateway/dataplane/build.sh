#!/usr/bin/env bash
# Builds the native data plane (relay.engine "native"), the framing check
# its parity test drives and the hostile TLS peer of the hostile-client
# suite into gateway/dataplane/bin/, cached outside
# the clone by their inputs (scripts/go-build-cached.sh). Without Go it says
# so and succeeds: the gateway's default (relay.engine "auto") then falls
# back to its Node engine, and it refuses to start when "native" is named.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
status=0
bash "$HERE/../../scripts/go-build-cached.sh" "$HERE" dataplane \
  "lanterna-dataplane ./cmd/lanterna-dataplane" "pdu-check ./cmd/pdu-check" \
  "hostile-tls-peer ./cmd/hostile-tls-peer" || status=$?
if [ "$status" -eq 3 ]; then
  echo "[dataplane] only the node relay engine is available" >&2
  exit 0
fi
exit "$status"
