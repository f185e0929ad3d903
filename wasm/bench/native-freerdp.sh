#!/usr/bin/env bash
# The native FreeRDP the benchmarks and the native twin link against
# (freerdp-native.sh), built once per input key and cached under
# $CACHE/bench/native-freerdp-<key>/. Prints its prefix.
# Usage: bash wasm/bench/native-freerdp.sh   (after bash wasm/build.sh: it reuses the fetched tarball)
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WASM=$(cd "$HERE/.." && pwd)
CACHE=${LANTERNA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lanterna}/wasm
FREERDP_ORIG=$(grep -o 'freerdp3_[^ ]*orig.tar.xz' "$WASM/build.sh" | head -1)
[ -f "$CACHE/src/$FREERDP_ORIG" ] || { echo "[bench] no $FREERDP_ORIG in $CACHE/src (run bash wasm/build.sh first)" >&2; exit 1; }

NATIVE_KEY=$( { cat "$HERE/freerdp-native.sh" "$WASM/scripts/freerdp-source.sh" "$WASM"/patches/*.patch; echo "$FREERDP_ORIG"; gcc --version | sed -n 1p; } | sha256sum | cut -c1-16)
NATIVE_DIR=$CACHE/bench/native-freerdp-$NATIVE_KEY
exec 9>"$CACHE/.lock"
flock 9
if [ ! -f "$NATIVE_DIR/.stamp" ]; then
  echo "[bench] building native FreeRDP (cold, minutes)" >&2
  rm -rf "$NATIVE_DIR"
  mkdir -p "$CACHE/bench"
  bash "$HERE/freerdp-native.sh" "$CACHE/src/$FREERDP_ORIG" "$WASM/patches" "$NATIVE_DIR" >&2
  touch "$NATIVE_DIR/.stamp"
fi
echo "$NATIVE_DIR"
