#!/usr/bin/env bash
# The Docker image's test on a machine without a Docker engine (issue 14):
# installs what it needs (the usual setup, then buildah and debootstrap),
# builds the image from this checkout with the scripts CI runs, runs it and
# probes it, and projects the demo presenter through it (deploy/build-image.sh
# --project). Cold on a fresh machine ≈15 min (the wasm client is most of it);
# warm rebuilds ≈1 min. Extra arguments go to deploy/build-image.sh.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
bash scripts/setup.sh
missing=()
for pkg in buildah debootstrap; do
  [ "$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null)" = installed ] || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "[image-test] installing ${missing[*]}" >&2
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
bash scripts/build.sh
npx --no-install tsc -b deploy/test
as_root bash deploy/build-image.sh --project "$@"
