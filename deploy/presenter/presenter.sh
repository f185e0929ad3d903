#!/usr/bin/env bash
# The compose demo's presenter: a virtual screen (Xvfb) showing a terminal,
# shared by FreeRDP 3's shadow server over TLS with no login (a demo only:
# anyone who reaches the port sees the screen).
# Env: PRESENTER_SIZE (1920x1080), PRESENTER_PORT (3389), PRESENTER_DISPLAY (:0),
#      PRESENTER_BIND (0.0.0.0).
set -euo pipefail
SIZE=${PRESENTER_SIZE:-1920x1080}
PORT=${PRESENTER_PORT:-3389}
BIND=${PRESENTER_BIND:-0.0.0.0}
export DISPLAY=${PRESENTER_DISPLAY:-:0}

log() { printf '[presenter] %s\n' "$*" >&2; }

Xvfb "$DISPLAY" -screen 0 "${SIZE}x24" -nolisten tcp -noreset &
xvfb=$!
trap 'kill "$xvfb" 2>/dev/null || true' EXIT
# Xvfb takes a moment to accept clients: wait for it, 10 s at most.
for _ in $(seq 100); do
  xdpyinfo >/dev/null 2>&1 && break
  kill -0 "$xvfb" 2>/dev/null || { log "error: Xvfb on $DISPLAY exited"; exit 1; }
  sleep 0.1
done
xdpyinfo >/dev/null 2>&1 || { log "error: Xvfb on $DISPLAY did not start within 10 s"; exit 1; }

# Something to look at: a solid background and a live terminal.
xsetroot -solid '#1d4f91'
xterm -geometry 100x32+80+80 -fa 'DejaVu Sans Mono' -fs 16 -bg black -fg '#f0f0f0' \
  -T 'lanterna demo presenter' -e top -d 1 &

log "sharing $DISPLAY ($SIZE) on $BIND:$PORT (TLS, no login)"
freerdp-shadow-cli3 "/bind-address:$BIND" "/port:$PORT" /sec:tls -auth &
shadow=$!
# Docker stops us with SIGTERM: pass it on and wait for the server to end.
trap 'kill -TERM "$shadow" 2>/dev/null || true' TERM INT
status=0
wait "$shadow" || status=$?
# a signal ends the first wait early
if kill -0 "$shadow" 2>/dev/null; then wait "$shadow" || status=$?; fi
exit "$status"
