#!/usr/bin/env bash
# Builds the gateway image with buildah (chroot isolation: no Docker engine or
# container runtime needed), runs the gateway from it on the host network and
# probes it from the host: /healthz, the display page and its cross-origin
# isolation headers, the wasm client, the image's own HEALTHCHECK command, the
# unprivileged user, the state volume, a clean exit on SIGTERM. With
# --project it also builds the presenter stage, runs it, and has Debian's
# Chromium show the display page until the presenter's picture arrives
# (pixels checked) through the gateway restarted on the same state volume.
# Prints the timings and the image size; exits non-zero on any failed check.
#
# Usage: deploy/build-image.sh [--no-cache] [--presenter] [--project] [--once] [--port N] [--tag NAME] [--keep]
#   --no-cache   rebuild every layer (the wasm build's cache mount is kept:
#                a cold wasm build happens once per machine)
#   --presenter  also build the compose demo's presenter stage
#   --project    --presenter, then project it (needs chromium and a built
#                checkout: npx tsc -b deploy/test)
#   --once       do nothing when these packaging inputs (Dockerfile, deploy/,
#                the setup and build scripts, package lists, lock files, the
#                wasm build's recipe) passed before with the same options;
#                remembered in $LANTERNA_CACHE/image-test/ (for CI)
#   --port N     the gateway's port on the host network (default 8443)
#   --keep       leave the containers, state directory and logs behind
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
PROJECT=0
KEEP=0
ONCE=0
OPTIONS="$*"
while [ $# -gt 0 ]; do
  case $1 in
    --no-cache) NO_CACHE=(--no-cache) ;;
    --presenter) PRESENTER=1 ;;
    --project) PRESENTER=1; PROJECT=1 ;;
    --port) PORT=${2:?--port needs a number}; shift ;;
    --tag) TAG=${2:?--tag needs a name}; shift ;;
    --keep) KEEP=1 ;;
    --once) ONCE=1 ;;
    -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
    *) echo "build-image: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done
PRESENTER_TAG=${TAG%:*}-presenter:${TAG##*:}
PRESENTER_COLOUR=1d4f91 # deploy/presenter/presenter.sh's background

log() { printf '[build-image] %s\n' "$*" >&2; }
die() { printf '[build-image] FAILED: %s\n' "$*" >&2; exit 1; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
command -v buildah >/dev/null || die "buildah is missing (apt-get install buildah)"
[ "$(id -u)" -eq 0 ] || die "run as root (buildah with chroot isolation)"
if [ "$PROJECT" = 1 ]; then
  [ -f "$ROOT/deploy/test/dist/projectThroughImage.js" ] || die "--project needs a built checkout (npx tsc -b deploy/test)"
  command -v chromium >/dev/null || die "--project needs chromium"
fi
# What the image is made from, besides the product sources the suite tests.
packaging_key() {
  (cd "$ROOT" && find Dockerfile .dockerignore deploy scripts/setup.sh scripts/build.sh tsconfig.product.json scripts/apt-packages.txt \
      scripts/python-requirements.txt package.json package-lock.json wasm/build.sh wasm/CMakeLists.txt wasm/scripts wasm/patches \
      -type f -not -path '*/dist/*' -not -path '*/node_modules/*' -not -name README.md -print0 |
    sort -z | xargs -0 sha256sum; echo "$OPTIONS" | sed 's/--port [0-9]*//; s/--once//') | sha256sum | cut -c1-16
}
STAMP=${LANTERNA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lanterna}/image-test/$(packaging_key).passed
if [ "$ONCE" = 1 ] && [ -f "$STAMP" ]; then
  log "these packaging inputs passed before ($STAMP): nothing to do"
  exit 0
fi
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
port_open "$PORT" && die "port $PORT is taken on this machine (--port N)"

# --- base image -------------------------------------------------------------
base_s=0
if buildah inspect --type image "$BASE" >/dev/null 2>&1; then
  log "base image $BASE present"
else
  t=$(now)
  bash "$ROOT/deploy/base-image.sh" "$BASE"
  base_s=$(since "$t")
fi

# --- build ------------------------------------------------------------------
work=$(mktemp -d)
build_log=$work/build.log
# The build's downloads trust what this machine trusts (a proxy that inspects
# TLS has its CA there): handed in as a secret, see deploy/build-ca.sh.
CA_BUNDLE=${LANTERNA_BUILD_CA:-/etc/ssl/certs/ca-certificates.crt}
SECRET=()
[ -s "$CA_BUNDLE" ] && SECRET=(--secret "id=build-ca,src=$CA_BUNDLE")
build() { # build <target> <tag>
  # docker format: OCI image configs cannot hold HEALTHCHECK (or SHELL)
  buildah bud --isolation chroot --format docker --layers "${NO_CACHE[@]}" "${SECRET[@]}" \
    --build-arg "BASE_IMAGE=$BASE" --target "$1" -t "$2" -f "$ROOT/Dockerfile" "$ROOT" >>"$build_log" 2>&1 ||
    { tail -40 "$build_log" >&2; KEEP=1; die "buildah bud --target $1 (full log: $build_log)"; }
}
t=$(now)
log "building $TAG (log: $build_log)"
build gateway "$TAG"
build_s=$(since "$t")
presenter_s=-
if [ "$PRESENTER" = 1 ]; then
  t=$(now)
  log "building $PRESENTER_TAG"
  build presenter "$PRESENTER_TAG"
  presenter_s=$(since "$t")
fi
size=$(buildah images --format '{{.Size}}' "$TAG" | head -1)
# The image's own HEALTHCHECK and ENTRYPOINT, as docker would run them, one word a line.
image_config() { # image_config <field of the docker config>
  buildah inspect --type image "$TAG" | node -e '
    let text = ""; process.stdin.on("data", (chunk) => { text += chunk; }).on("end", () => {
      let value = JSON.parse(text).Docker.config[process.argv[1]];
      if (process.argv[1] === "Healthcheck") value = value?.Test?.[0] === "CMD" ? value.Test.slice(1) : [];
      for (const word of Array.isArray(value) ? value : Object.keys(value ?? {})) console.log(word);
    });' "$1"
}
mapfile -t healthcheck < <(image_config Healthcheck)
[ ${#healthcheck[@]} -gt 0 ] || die "the image has no HEALTHCHECK in exec form (built as OCI?)"
mapfile -t entrypoint < <(image_config Entrypoint)
[ ${#entrypoint[@]} -gt 0 ] || die "the image has no ENTRYPOINT"
[ "$(image_config Volumes)" = /var/lib/lanterna ] || die "the image's VOLUME is not /var/lib/lanterna"

# --- run and probe ----------------------------------------------------------
state=$work/state # the state volume
mkdir -p "$state"
chown 10001:10001 "$state" # what a named volume gets from the image's /var/lib/lanterna
containers=()
runners=()
declare -A runner_patterns # runner pid → its top process's command line pattern
cleanup() {
  local runner
  for runner in "${runners[@]}"; do stop_tree "$runner" "${runner_patterns[$runner]}" || true; done
  if [ "$KEEP" = 1 ]; then log "kept containers ${containers[*]} and $work"; return; fi
  for container in "${containers[@]}"; do buildah rm "$container" >/dev/null 2>&1 || true; done
  rm -rf "$work"
}
trap cleanup EXIT

descendants() { # pids below $1
  ps -e -o pid=,ppid= | awk -v root="$1" '
    { parent[$1] = $2 }
    END { for (pid in parent) { p = parent[pid]; while (p > 1) { if (p == root) { print pid; break } p = parent[p] } } }'
}
# The processes below one of our `buildah run`s that run this command line
# (not buildah's own chroot helpers, whose command lines carry it too).
processes_of() { # processes_of <runner pid> <pattern>
  local pid cmdline
  for pid in $(descendants "$1"); do
    cmdline=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || continue
    [[ $cmdline == *"$2"* && $cmdline != buildah* ]] && echo "$pid"
  done
  return 0
}
# SIGTERM to the top process a `buildah run` of ours runs (the one matching the
# pattern whose parent does not), as `docker stop` would; then wait for the run
# to end, 45 s at most, and return its exit status.
stop_tree() { # stop_tree <runner pid> <pattern>
  local pid parent matches
  kill -0 "$1" 2>/dev/null || { wait "$1" 2>/dev/null; return; }
  matches=" $(processes_of "$1" "$2" | tr '\n' ' ') "
  for pid in $matches; do
    parent=$(ps -o ppid= -p "$pid" | tr -d ' ')
    [[ $matches == *" $parent "* ]] || kill -TERM "$pid" 2>/dev/null || true
  done
  for _ in $(seq 450); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
  wait "$1" 2>/dev/null
}

gateway=$(buildah from "$TAG")
containers+=("$gateway")
# `buildah run` gives the image's VOLUME an anonymous volume of its own, and
# which of that and our -v lands on top varies from run to run: the state
# directory we mount there, as `docker run -v` would, must be the only one.
buildah config --volume /var/lib/lanterna- "$gateway"
# a command in the gateway's container, with the environment the gateway has (as docker's HEALTHCHECK gets)
in_gateway() { buildah run --isolation chroot -v "$state:/var/lib/lanterna" -e "LANTERNA_LISTEN_PORT=$PORT" "$gateway" -- "$@"; }
[ "$(in_gateway id -u)" = 10001 ] || die "the image's user is not 10001"
in_gateway node --version | grep -q '^v20\.' || die "the image's node is not Node 20"

start_gateway() { # start_gateway <log> [buildah run options…]: sets gateway_runner and start_s
  local log=$1 healthz='' t
  shift
  t=$(now)
  buildah run --isolation chroot -v "$state:/var/lib/lanterna" -e "LANTERNA_LISTEN_PORT=$PORT" "$@" \
    "$gateway" -- "${entrypoint[@]}" >"$log" 2>&1 &
  gateway_runner=$!
  runners+=("$gateway_runner")
  runner_patterns[$gateway_runner]=gateway/dist/cli.js
  # the first start makes a certificate: 60 s at most
  for _ in $(seq 600); do
    healthz=$(curl -sk --max-time 2 "https://127.0.0.1:$PORT/healthz" || true)
    [ "$healthz" = ok ] && break
    kill -0 "$gateway_runner" 2>/dev/null || { tail -20 "$log" >&2; die "the gateway exited"; }
    sleep 0.1
  done
  [ "$healthz" = ok ] || { tail -20 "$log" >&2; die "/healthz did not answer ok within 60 s"; }
  start_s=$(since "$t")
}

start_gateway "$work/gateway.log"
first_start_s=$start_s
log "gateway (${entrypoint[*]}) answers /healthz on https://127.0.0.1:$PORT after ${start_s} s"
# the image carries the native data plane, so the default (relay.engine auto) relays with it
for _ in $(seq 50); do grep -q '"msg":"listening"' "$work/gateway.log" && break; sleep 0.1; done
grep '"msg":"listening"' "$work/gateway.log" | grep -q '"relayEngine":"native"' ||
  die "the gateway in the image does not relay with its native data plane: $(grep -E '"msg":"listening"|relay-engine-fallback' "$work/gateway.log" | head -2)"
log "the gateway relays with its native data plane (relay.engine auto)"

mapfile -t gateway_pids < <(processes_of "$gateway_runner" gateway/dist/cli.js)
[ ${#gateway_pids[@]} -gt 0 ] || die "could not find the gateway's processes"
for pid in "${gateway_pids[@]}"; do
  uid=$(awk '/^Uid:/ { print $2 }' "/proc/$pid/status")
  [ "$uid" = 10001 ] || die "gateway process $pid runs as uid $uid, not 10001"
done

headers=$(curl -sk -D - -o /dev/null "https://127.0.0.1:$PORT/display/lobby")
grep -q '^HTTP/1.1 200' <<<"$headers" || die "/display/lobby: $(head -1 <<<"$headers")"
grep -qi '^cross-origin-opener-policy: same-origin' <<<"$headers" || die "/display/lobby has no COOP same-origin"
grep -qi '^cross-origin-embedder-policy: require-corp' <<<"$headers" || die "/display/lobby has no COEP require-corp"
wasm=$(curl -sk -o /dev/null -w '%{http_code} %{size_download}' "https://127.0.0.1:$PORT/wasm/build/lanterna-rdp.wasm")
[ "${wasm%% *}" = 200 ] || die "the wasm client is not served ($wasm)"
wasm=$(curl -sk -o /dev/null -w '%{http_code} %{size_download}' "https://127.0.0.1:$PORT/wasm/build/lanterna-presenter.wasm")
[ "${wasm%% *}" = 200 ] || die "the presenter page's wasm RDP server is not served ($wasm)"
in_gateway "${healthcheck[@]}" || die "the image's HEALTHCHECK command (${healthcheck[*]}) failed"

for file in admin-token session-secret gateway-key.pem gateway-cert.pem; do
  [ "$(stat -c %u "$state/$file" 2>/dev/null)" = 10001 ] || die "$file is not in the state volume, owned by 10001"
done
[ "$(stat -c %a "$state")" = 700 ] || die "the state volume is not 0700"
admin_token=$(cat "$state/admin-token")

stop_tree "$gateway_runner" gateway/dist/cli.js || die "the gateway did not exit 0 on SIGTERM"
runners=()
log "gateway stopped cleanly on SIGTERM"

# --- project the presenter through the image --------------------------------
project_s=-
if [ "$PROJECT" = 1 ]; then
  presenter=$(buildah from "$PRESENTER_TAG")
  containers+=("$presenter")
  # The host network is shared: a display number and a port nobody uses.
  for n in $(seq 140 199); do [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ] || { x_display=:$n; break; }; done
  rdp_port=$(node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')
  buildah run --isolation chroot -e "PRESENTER_DISPLAY=$x_display" -e "PRESENTER_PORT=$rdp_port" -e PRESENTER_BIND=127.0.0.1 \
    "$presenter" -- /usr/local/bin/lanterna-presenter >"$work/presenter.log" 2>&1 &
  presenter_runner=$!
  runners+=("$presenter_runner")
  runner_patterns[$presenter_runner]=lanterna-presenter
  for _ in $(seq 300); do port_open "$rdp_port" && break; kill -0 "$presenter_runner" 2>/dev/null || break; sleep 0.1; done
  port_open "$rdp_port" || { tail -20 "$work/presenter.log" >&2; die "the presenter did not listen on $rdp_port within 30 s"; }
  [ "$(awk '/^Uid:/ { print $2 }' "/proc/$(processes_of "$presenter_runner" freerdp-shadow-cli3 | head -1)/status")" = 10002 ] ||
    die "the presenter's shadow server does not run as 10002"
  log "presenter (from $PRESENTER_TAG) shares $x_display on 127.0.0.1:$rdp_port"

  # the gateway again, same state volume, with one display pinned to the presenter
  token=$(head -c 18 /dev/urandom | base64 | tr '+/' '-_')
  mkdir -p "$work/config"
  cat >"$work/config/gateway.json" <<JSON
{
  "displays": [{ "id": "image-test", "token": "$token",
    "autoProject": { "host": "127.0.0.1", "port": $rdp_port, "credentials": { "username": "viewer", "password": "x" } } }],
  "policy": { "allowPorts": ["$rdp_port"] }
}
JSON
  chmod 755 "$work/config" && chmod 644 "$work/config/gateway.json"
  start_gateway "$work/gateway-project.log" -v "$work/config:/etc/lanterna:ro" -e LANTERNA_CONFIG=/etc/lanterna/gateway.json
  [ "$(cat "$state/admin-token")" = "$admin_token" ] || die "the admin token changed across restarts: the state volume did not keep it"
  grep -q 'generated a self-signed certificate' "$work/gateway-project.log" &&
    die "the restarted gateway made a new certificate: the state volume did not keep it"

  t=$(now)
  node "$ROOT/deploy/test/dist/projectThroughImage.js" "https://127.0.0.1:$PORT/display/image-test#token=$token" \
    "$PRESENTER_COLOUR" "$work/projected.png" >"$work/projected.json" ||
    { cat "$work/projected.json" >&2; tail -5 "$work/gateway-project.log" >&2; KEEP=1; die "the presenter's picture did not reach the page (screenshot $work/projected.png)"; }
  project_s=$(since "$t")
  grep -q "127.0.0.1:$rdp_port" "$state/known-targets.json" || die "the presenter's certificate was not pinned in the state volume"
  cp "$work/projected.png" "${LANTERNA_IMAGE_SCREENSHOT:-/tmp/lanterna-image-projected.png}"
  log "the page shows the presenter after ${project_s} s: $(cat "$work/projected.json")"
  stop_tree "$gateway_runner" gateway/dist/cli.js || die "the gateway did not exit 0 on SIGTERM"
  stop_tree "$presenter_runner" lanterna-presenter || true
  runners=()
fi

log "all checks passed"
mkdir -p "$(dirname "$STAMP")" && date -u +%FT%TZ >"$STAMP"
printf 'image %s: %s\n' "$TAG" "$size"
printf 'timings (s): base image %s, build %s, presenter %s, gateway start to /healthz %s, page projecting %s\n' \
  "$base_s" "$build_s" "$presenter_s" "$first_start_s" "$project_s"
printf 'checks: /healthz ok; /display/lobby 200 with COOP+COEP; wasm %s bytes; HEALTHCHECK ok; %s gateway processes (primary + workers) as uid 10001; state volume 0700 with certificate, key, admin token, session secret; SIGTERM exit 0\n' \
  "${wasm#* }" "${#gateway_pids[@]}"
[ "$PROJECT" = 1 ] && printf 'projection: presenter as uid 10002, its picture in the display page (screenshot %s), pin in the state volume, certificate and admin token kept across restarts\n' \
  "${LANTERNA_IMAGE_SCREENSHOT:-/tmp/lanterna-image-projected.png}"
exit 0
