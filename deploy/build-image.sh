#!/usr/bin/env bash
# Builds the gateway image with buildah (chroot isolation: no Docker engine or
# container runtime needed), runs the gateway from it and probes it from the
# host: /healthz, the display page and its cross-origin isolation headers, the
# image's own HEALTHCHECK command, the unprivileged user, the state volume.
# Prints the timings and the image size; exits non-zero on any failed check.
#
# Usage: deploy/build-image.sh [--no-cache] [--presenter] [--port N] [--tag NAME] [--keep]
#   --no-cache   rebuild every layer (the wasm build's cache mount is kept:
#                a cold wasm build happens once per machine)
#   --presenter  also build the compose demo's presenter stage
#   --port N     the gateway's port on the host network (default 8443)
#   --keep       leave the test container and its state directory behind
# Env: LANTERNA_BUILD_CA  CA bundle the build's HTTPS downloads trust
#                         (default: this machine's, /etc/ssl/certs/ca-certificates.crt)
# Needs root, buildah and (once, for the base image) debootstrap.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TAG=localhost/lanterna-gateway:dev
BASE=localhost/lanterna-base:bookworm
PORT=8443
NO_CACHE=()
PRESENTER=0
KEEP=0
while [ $# -gt 0 ]; do
  case $1 in
    --no-cache) NO_CACHE=(--no-cache) ;;
    --presenter) PRESENTER=1 ;;
    --port) PORT=${2:?--port needs a number}; shift ;;
    --tag) TAG=${2:?--tag needs a name}; shift ;;
    --keep) KEEP=1 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "build-image: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done

log() { printf '[build-image] %s\n' "$*" >&2; }
die() { printf '[build-image] FAILED: %s\n' "$*" >&2; exit 1; }
now() { date +%s.%N; }
seconds() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", b - a }'; }
command -v buildah >/dev/null || die "buildah is missing (apt-get install buildah)"
[ "$(id -u)" -eq 0 ] || die "run as root (buildah with chroot isolation)"

# --- base image -------------------------------------------------------------
if buildah inspect --type image "$BASE" >/dev/null 2>&1; then
  base_s=0
  log "base image $BASE present"
else
  t=$(now)
  bash "$ROOT/deploy/base-image.sh" "$BASE"
  base_s=$(seconds "$t" "$(now)")
fi

# --- build ------------------------------------------------------------------
build_log=$(mktemp)
# The build's downloads trust what this machine trusts (a proxy that inspects
# TLS has its CA there): handed in as a secret, see deploy/build-ca.sh.
CA_BUNDLE=${LANTERNA_BUILD_CA:-/etc/ssl/certs/ca-certificates.crt}
SECRET=()
[ -s "$CA_BUNDLE" ] && SECRET=(--secret "id=build-ca,src=$CA_BUNDLE")
build() { # build <target> <tag>
  # docker format: OCI image configs cannot hold HEALTHCHECK (or SHELL)
  buildah bud --isolation chroot --format docker --layers "${NO_CACHE[@]}" "${SECRET[@]}" --build-arg "BASE_IMAGE=$BASE" \
    --target "$1" -t "$2" -f "$ROOT/Dockerfile" "$ROOT" >>"$build_log" 2>&1 ||
    { tail -40 "$build_log" >&2; die "buildah bud --target $1 (full log: $build_log)"; }
}
t=$(now)
log "building $TAG (log: $build_log)"
build gateway "$TAG"
build_s=$(seconds "$t" "$(now)")
presenter_s=-
if [ "$PRESENTER" = 1 ]; then
  t=$(now)
  build presenter "${TAG%:*}-presenter:${TAG##*:}"
  presenter_s=$(seconds "$t" "$(now)")
fi
size=$(buildah images --format '{{.Size}}' "$TAG" | head -1)
# the image's own HEALTHCHECK command, run below inside the container
healthcheck_json=$(buildah inspect --type image --format '{{json .Docker.Config.Healthcheck}}' "$TAG")
mapfile -t healthcheck < <(node -e 'const h = JSON.parse(process.argv[1]); if (h?.Test?.[0] === "CMD") for (const a of h.Test.slice(1)) console.log(a)' "$healthcheck_json")
[ ${#healthcheck[@]} -gt 0 ] || die "the image has no HEALTHCHECK in exec form ($healthcheck_json)"

# --- run --------------------------------------------------------------------
if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then die "port $PORT is taken on this machine (--port N)"; fi
state=$(mktemp -d)
chown 10001:10001 "$state" # what a named volume gets from the image's /var/lib/lanterna
container=$(buildah from "$TAG")
gateway_pid=
runner=
cleanup() {
  [ -n "$gateway_pid" ] && kill -TERM "$gateway_pid" 2>/dev/null || true
  [ -n "$runner" ] && wait "$runner" 2>/dev/null || true
  if [ "$KEEP" = 1 ]; then log "kept container $container, state $state, gateway log $state.log"; return; fi
  buildah rm "$container" >/dev/null 2>&1 || true
  rm -rf "$state" "$state.log"
}
trap cleanup EXIT
in_container() { buildah run --isolation chroot -v "$state:/var/lib/lanterna" "$container" -- "$@"; }

[ "$(in_container id -u)" = 10001 ] || die "the image's user is not 10001"
in_container node --version | grep -q '^v20\.' || die "the image's node is not Node 20"

t=$(now)
buildah run --isolation chroot -v "$state:/var/lib/lanterna" -e "LANTERNA_LISTEN_PORT=$PORT" \
  "$container" -- node /app/gateway/dist/cli.js >"$state.log" 2>&1 &
runner=$!
# wait for the gateway's answer, 60 s at most (first start makes a certificate)
healthz=
for _ in $(seq 600); do
  healthz=$(curl -sk --max-time 2 "https://127.0.0.1:$PORT/healthz" || true)
  [ "$healthz" = ok ] && break
  kill -0 "$runner" 2>/dev/null || { tail -20 "$state.log" >&2; die "the gateway exited"; }
  sleep 0.1
done
[ "$healthz" = ok ] || { tail -20 "$state.log" >&2; die "/healthz did not answer ok within 60 s"; }
start_s=$(awk -v a="$t" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
log "gateway answers /healthz on https://127.0.0.1:$PORT after ${start_s} s"

# the gateway's primary process: the descendant of our buildah run that runs the CLI
descendants() { # pids below $1
  ps -e -o pid=,ppid= | awk -v root="$1" '
    { parent[$1] = $2 }
    END { for (pid in parent) { p = parent[pid]; while (p > 1) { if (p == root) { print pid; break } p = parent[p] } } }'
}
gateway_pids=()
for pid in $(descendants "$runner"); do
  grep -qa 'gateway/dist/cli.js' "/proc/$pid/cmdline" 2>/dev/null && gateway_pids+=("$pid")
done
[ ${#gateway_pids[@]} -gt 0 ] || die "could not find the gateway's processes"
for pid in "${gateway_pids[@]}"; do
  uid=$(awk '/^Uid:/ { print $2 }' "/proc/$pid/status")
  [ "$uid" = 10001 ] || die "gateway process $pid runs as uid $uid, not 10001"
  # the primary: the one whose parent is not a gateway process (workers are its children)
  parent=$(ps -o ppid= -p "$pid" | tr -d ' ')
  grep -qa 'gateway/dist/cli.js' "/proc/$parent/cmdline" 2>/dev/null || gateway_pid=$pid
done

headers=$(curl -sk -D - -o /dev/null "https://127.0.0.1:$PORT/display/lobby")
grep -q '^HTTP/1.1 200' <<<"$headers" || die "/display/lobby: $(head -1 <<<"$headers")"
grep -qi '^cross-origin-opener-policy: same-origin' <<<"$headers" || die "/display/lobby has no COOP same-origin"
grep -qi '^cross-origin-embedder-policy: require-corp' <<<"$headers" || die "/display/lobby has no COEP require-corp"
wasm=$(curl -sk -o /dev/null -w '%{http_code} %{size_download}' "https://127.0.0.1:$PORT/wasm/build/lanterna-rdp.wasm")
[ "${wasm%% *}" = 200 ] || die "the wasm client is not served ($wasm)"
in_container "${healthcheck[@]}" || die "the image's HEALTHCHECK command (${healthcheck[*]}) failed"

for file in admin-token session-secret; do
  [ "$(stat -c %u "$state/$file" 2>/dev/null)" = 10001 ] || die "$file is not in the state volume, owned by 10001"
done
[ -s "$state/gateway-cert.pem" ] && [ -s "$state/gateway-key.pem" ] || die "no certificate and key in the state volume"
[ "$(stat -c %a "$state")" = 700 ] || die "the state volume is not 0700"

kill -TERM "$gateway_pid"
wait "$runner" || die "the gateway did not exit 0 on SIGTERM"
gateway_pid=
runner=

log "all checks passed"
printf 'image %s: %s\n' "$TAG" "$size"
printf 'timings (s): base image %s, build %s, presenter %s, gateway start to /healthz %s\n' \
  "$base_s" "$build_s" "$presenter_s" "$start_s"
printf 'checks: /healthz ok; /display/lobby 200 with COOP+COEP; wasm %s bytes; HEALTHCHECK ok; %s gateway processes (primary + workers) as uid 10001; state volume 0700 with certificate, key, admin token, session secret; SIGTERM exit 0\n' \
  "${wasm#* }" "${#gateway_pids[@]}"
