#!/usr/bin/env bash
# One KW v1 step through the gateway's native data plane, profiled in its hold:
# a Go CPU profile and heap profile of the data plane, and the CPU its Node
# process and the data plane each used over the same seconds.
#
#   loadtest/helpers/dataPlaneProfile.sh SESSIONS [SECONDS] [OUT_DIR] [-- extra run-loadtest options]
#
# The hold is found by the data plane's descriptors: each session holds four
# (the data socket, the server leg, the control socket and its hop to Node),
# so the ramp is over once it has 4 × SESSIONS. Then: go tool pprof -top
# gateway/dataplane/bin/lanterna-dataplane OUT_DIR/cpu.pb.gz
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SESSIONS=${1:?sessions}
SECONDS_PROFILED=${2:-10}
OUT=${3:-$ROOT/loadtest/results/profile-native-$SESSIONS}
shift $(( $# < 3 ? $# : 3 ))
[ "${1:-}" = "--" ] && shift
PPROF=127.0.0.1:${LANTERNA_PROFILE_PORT:-6061}
mkdir -p "$OUT"

LANTERNA_DATAPLANE_PPROF=$PPROF "$ROOT/loadtest/run-loadtest.sh" run --scenario kw-v1 --relay lanterna-native \
  --step "$SESSIONS" --max-connections "$SESSIONS" --hold-seconds $((SECONDS_PROFILED + 20)) --confirm-holds 0 \
  --kiosk-tls --name "$(basename "$OUT")" "$@" >"$OUT/run.log" 2>&1 &
run=$!

ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
dataplane=''
for _ in $(seq 1 600); do
  sleep 1
  kill -0 "$run" 2>/dev/null || { echo "the run ended before its hold: $OUT/run.log" >&2; exit 1; }
  dataplane=$(pgrep -f 'bin/lanterna-dataplane' | head -1 || true)
  [ -n "$dataplane" ] || continue
  [ "$(find "/proc/$dataplane/fd" -mindepth 1 2>/dev/null | wc -l)" -ge $((4 * SESSIONS)) ] && break
done
sleep 5
node_pid=$(ps -o ppid= -p "$dataplane" | tr -d ' ')
hz=$(getconf CLK_TCK)
go_before=$(ticks "$dataplane"); node_before=$(ticks "$node_pid")
curl -fsS -o "$OUT/cpu.pb.gz" "http://$PPROF/debug/pprof/profile?seconds=$SECONDS_PROFILED"
go_after=$(ticks "$dataplane"); node_after=$(ticks "$node_pid")
curl -fsS -o "$OUT/heap.pb.gz" "http://$PPROF/debug/pprof/heap"
curl -fsS -o "$OUT/goroutines.txt" "http://$PPROF/debug/pprof/goroutine?debug=1"
{
  echo "sessions $SESSIONS, $SECONDS_PROFILED s in the hold"
  awk -v g=$((go_after - go_before)) -v n=$((node_after - node_before)) -v hz="$hz" -v s="$SECONDS_PROFILED" \
    'BEGIN { printf "data plane %.3f cores, node %.3f cores\n", g / hz / s, n / hz / s }'
  echo "data plane RSS $(awk '/VmRSS/ {print $2, $3}' "/proc/$dataplane/status"), node RSS $(awk '/VmRSS/ {print $2, $3}' "/proc/$node_pid/status")"
  head -1 "$OUT/goroutines.txt"
} | tee "$OUT/split.txt"
wait "$run" || true
grep 'connections:' "$OUT/run.log" || true
