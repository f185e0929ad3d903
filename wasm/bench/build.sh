#!/usr/bin/env bash
# Builds the codec benchmark twice from the same C and the same FreeRDP source:
# wasm (against wasm/build.sh's cached libraries) and native (against a native
# build of the same tarball and patches, cached too). Then runs both. Then the
# same for recorded sessions through the whole client: the wasm client against
# its native twin (native/: our glue built natively against that FreeRDP).
# Usage: bash wasm/bench/build.sh [frames] [repeats]
#   (one JSON line per build and run on stderr, the comparison tables on stdout)
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WASM=$(cd "$HERE/.." && pwd)
CACHE=${LANTERNA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lanterna}/wasm
FRAMES=${1:-20}
REPEATS=${2:-3}
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}

bash "$WASM/build.sh" >&2
# shellcheck disable=SC1091
source "$WASM/build/prefixes.env"

NATIVE_DIR=$(bash "$HERE/native-freerdp.sh")

OUT=$WASM/build/bench
mkdir -p "$OUT"
echo '{ "type": "commonjs" }' >"$OUT/package.json"
# -sPROXY_TO_PTHREAD: the benchmark runs on a pthread, as the client's RDP
# thread does; a blocked main thread would spin in its futex waits (a core
# lost to FreeRDP's codec threads). -sPTHREAD_POOL_SIZE: workers exist
# before FreeRDP's thread pool asks for them.
emcc -O2 -pthread -msimd128 "$HERE/codec_bench.c" -I"$FREERDP_DIR/include/freerdp3" -I"$FREERDP_DIR/include/winpr3" \
  -Wl,--start-group "$FREERDP_DIR/lib/libfreerdp3.a" "$FREERDP_DIR/lib/libwinpr3.a" \
  "$OPENSSL_DIR/lib/libssl.a" "$OPENSSL_DIR/lib/libcrypto.a" -Wl,--end-group \
  -sENVIRONMENT=node -sINITIAL_MEMORY=268435456 -sEXIT_RUNTIME=1 -sNODEJS_CATCH_EXIT=0 \
  -sPTHREAD_POOL_SIZE=8 -sPROXY_TO_PTHREAD \
  -o "$OUT/codec_bench.js"
gcc -O2 -w -pthread -msse4.2 -mssse3 "$HERE/codec_bench.c" -I"$NATIVE_DIR/include/freerdp3" -I"$NATIVE_DIR/include/winpr3" \
  -Wl,--start-group "$NATIVE_DIR/lib/libfreerdp3.a" "$NATIVE_DIR/lib/libwinpr3.a" -Wl,--end-group \
  -lavcodec -lavutil -lssl -lcrypto -lm -ldl -lz -o "$OUT/codec_bench"

node "$HERE/compare.mjs" "$OUT/codec_bench" "$OUT/codec_bench.js" "$FRAMES" "$REPEATS"

REPLAY_NATIVE=$(bash "$HERE/native/build.sh" "$NATIVE_DIR" "$CACHE/bench")
node "$HERE/replay-compare.mjs" "$REPLAY_NATIVE" "$REPEATS"
