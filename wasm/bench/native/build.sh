#!/usr/bin/env bash
# Builds the native twin of the wasm client (../../src glue + this folder's
# driver) against a native FreeRDP install (../freerdp-native.sh), cached under
# <cache>/native-replay-<key>/ with the key taken from its inputs: the FreeRDP
# install (its folder name is that build's key), the glue, this folder, gcc.
# Prints the binary's path.
# Usage: bash wasm/bench/native/build.sh <native FreeRDP prefix> <cache dir>
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$HERE/../../src" && pwd)
PREFIX=$1 CACHE=$2

# the glue's files only (src/presenter/ is the presenter's module, not built here)
mapfile -t GLUE_FILES < <(find "$SRC" -maxdepth 1 -type f | LC_ALL=C sort)
KEY=$( { echo "$PREFIX"; cat "${GLUE_FILES[@]}" "$HERE"/*; gcc --version | head -1; } | sha256sum | cut -c1-16)
OUT=$CACHE/native-replay-$KEY
mkdir -p "$CACHE"
exec 9>"$CACHE/.native-replay.lock"
flock 9
if [ ! -f "$OUT/.stamp" ]; then
  rm -rf "$OUT"
  mkdir -p "$OUT"
  # js_events.c posts to JS (native_events.c stands in for it); h264_webcodecs.c
  # decodes in JS (native_video.c leaves H.264 to FreeRDP's FFmpeg backend)
  glue=()
  for file in "$SRC"/*.c; do
    case $(basename "$file") in js_events.c | h264_webcodecs.c) ;; *) glue+=("$file") ;; esac
  done
  # -Wno-deprecated-declarations: FreeRDP's own headers trip it at every include.
  # The static channel clients are objects inside libfreerdp-client3.a; one link
  # group because they, client-common, libfreerdp and WinPR reference each other.
  gcc -O2 -pthread -msse4.2 -mssse3 -Wall -Wextra -Wno-unused-parameter -Wno-deprecated-declarations \
    -I"$SRC" -I"$HERE" -I"$PREFIX/include/freerdp3" -I"$PREFIX/include/winpr3" \
    "${glue[@]}" "$HERE"/*.c \
    -Wl,--start-group "$PREFIX/lib/libfreerdp-client3.a" "$PREFIX"/lib/freerdp3/*.a \
    "$PREFIX/lib/libfreerdp3.a" "$PREFIX/lib/libwinpr3.a" -Wl,--end-group \
    -lavcodec -lavutil -lssl -lcrypto -lm -ldl -lz -o "$OUT/replay_native" >&2
  touch "$OUT/.stamp"
fi
echo "$OUT/replay_native"
