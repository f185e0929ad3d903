#!/usr/bin/env bash
# One idempotent setup used by both README commands, .ci/run and the Dockerfile.
# A second run on a ready machine only checks stamps and package states (seconds).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${LANTERNA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lanterna}
MODE=${1:-all} # all | system (Debian packages + venv only, for the Dockerfile)
mkdir -p "$CACHE"

log() { printf '[setup] %s\n' "$*" >&2; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

apt_sources() {
  local file=/etc/apt/sources.list.d/lanterna.sources
  # deb-src for bookworm gives OpenSSL's source; trixie's deb-src gives FreeRDP 3's source
  # (the backports source 404s on the mirrors); backports binaries give FreeRDP 3's tools.
  local want
  want=$(cat <<'SRC'
Types: deb deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
)
  if [ ! -f "$file" ] || [ "$(cat "$file")" != "$want" ]; then
    log "adding apt sources ($file)"
    printf '%s\n' "$want" | as_root tee "$file" >/dev/null
    rm -f "$CACHE/apt-updated"
  fi
  if [ ! -f "$CACHE/apt-updated" ]; then
    log "apt-get update"
    as_root apt-get update -qq
    touch "$CACHE/apt-updated"
  fi
}

apt_packages() {
  local main=() backports=() missing_main=() missing_bp=() name
  while read -r line; do
    line=${line%%#*}; line=${line//[[:space:]]/}
    [ -n "$line" ] || continue
    if [[ $line == *@backports ]]; then backports+=("${line%@backports}"); else main+=("$line"); fi
  done <"$ROOT/scripts/apt-packages.txt"
  for name in "${main[@]}"; do dpkg_installed "$name" || missing_main+=("$name"); done
  for name in "${backports[@]}"; do dpkg_installed "$name" || missing_bp+=("$name"); done
  if [ ${#missing_main[@]} -eq 0 ] && [ ${#missing_bp[@]} -eq 0 ]; then return; fi
  apt_sources
  export DEBIAN_FRONTEND=noninteractive
  if [ ${#missing_main[@]} -gt 0 ]; then
    log "installing ${missing_main[*]}"
    as_root apt-get install -y -qq --no-install-recommends "${missing_main[@]}"
  fi
  if [ ${#missing_bp[@]} -gt 0 ]; then
    log "installing from bookworm-backports: ${missing_bp[*]}"
    as_root apt-get install -y -qq --no-install-recommends -t bookworm-backports "${missing_bp[@]}"
  fi
}

dpkg_installed() {
  [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ]
}

python_venv() {
  local venv="$CACHE/venv" req="$ROOT/scripts/python-requirements.txt" stamp
  stamp=$(sha256sum "$req" | cut -c1-16)
  if [ -f "$venv/.stamp" ] && [ "$(cat "$venv/.stamp")" = "$stamp" ]; then return; fi
  log "creating python venv at $venv"
  rm -rf "$venv"
  /usr/bin/python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$req"
  echo "$stamp" >"$venv/.stamp"
}

node_check() {
  if ! command -v node >/dev/null || [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 20 ]; then
    log "Node.js 20 or newer is required (found: $(node --version 2>/dev/null || echo none))"
    exit 1
  fi
}

npm_packages() {
  local stamp_file="$ROOT/node_modules/.lanterna-stamp" stamp
  stamp=$( (cat "$ROOT/package-lock.json"; node --version) | sha256sum | cut -c1-16)
  if [ -f "$stamp_file" ] && [ "$(cat "$stamp_file")" = "$stamp" ]; then return; fi
  log "npm ci"
  (cd "$ROOT" && PUPPETEER_SKIP_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 \
    npm ci --no-audit --no-fund --loglevel=error)
  echo "$stamp" >"$stamp_file"
}

apt_packages
python_venv
if [ "$MODE" = all ]; then
  node_check
  npm_packages
fi
log "ready"
