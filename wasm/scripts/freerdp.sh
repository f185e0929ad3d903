#!/usr/bin/env bash
# Stage 2: FreeRDP 3 (Debian trixie's orig tarball) + wasm/patches/*.patch as
# static wasm libraries: WinPR, libfreerdp (core, GDI, codecs), client-common
# with only the channels a projector needs (the list and why: freerdp-source.sh),
# and GFX H.264 through an external decoder the glue registers (patch 0010);
# for the presenter's page (src/presenter/), libfreerdp-server (server/common,
# the peer API) with the server halves of rdpgfx, rdpsnd and rdpei and nothing else
# of the server.
# Usage: freerdp.sh <orig tarball> <patch dir> <openssl prefix> <install prefix>
set -euo pipefail
# shellcheck source=freerdp-source.sh
source "$(dirname "${BASH_SOURCE[0]}")/freerdp-source.sh"
TARBALL=$1 PATCHES=$2 OPENSSL=$3 PREFIX=$4
WORK=$(mktemp -d "${PREFIX}.work.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir "$WORK/build"
freerdp_unpack_patched "$TARBALL" "$PATCHES" "$WORK/src"

# -Dbulk_free: emscripten's dlmalloc exports a bulk_free() of its own.
# CMAKE_POSITION_INDEPENDENT_CODE=OFF: FreeRDP turns -fPIC on for everything;
# the client is one statically linked module, and PIC wasm reaches every global
# through __memory_base/__table_base.
CFLAGS="-O2 -pthread -Dbulk_free=freerdp_bulk_free -msimd128 -msse4.2 -mssse3"
freerdp_channel_switches "$WORK/src"
# Of the kept channels only rdpgfx (the picture), rdpsnd (the presenter's
# sound, src/presenter/audio_output.c) and rdpei (the display's multi-touch,
# src/presenter/touch_input.c) get their server halves. The dynamic-channel
# server (drdynvc's DVC manager) is part of libfreerdp itself
# (WTSVirtualChannelManager in libfreerdp/core/server.c); channels/drdynvc/server
# is an empty plugin that nothing needs.
SERVER_CHANNELS_OFF=()
for ch in "$WORK/src"/channels/*/server/; do
  name=$(basename "$(dirname "$ch")")
  [[ $name =~ ^(rdpgfx|rdpsnd|rdpei)$ ]] || SERVER_CHANNELS_OFF+=("-DCHANNEL_${name^^}_SERVER=OFF")
done

cd "$WORK/build"
emcmake cmake "$WORK/src" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_INSTALL_PREFIX="$PREFIX" -DCMAKE_C_FLAGS="$CFLAGS" \
  -DOPENSSL_ROOT_DIR="$OPENSSL" -DOPENSSL_INCLUDE_DIR="$OPENSSL/include" \
  -DOPENSSL_CRYPTO_LIBRARY="$OPENSSL/lib/libcrypto.a" -DOPENSSL_SSL_LIBRARY="$OPENSSL/lib/libssl.a" \
  -DCMAKE_FIND_ROOT_PATH_MODE_PACKAGE=BOTH -DCMAKE_FIND_ROOT_PATH="$OPENSSL" \
  -DBUILD_SHARED_LIBS=OFF -DWITH_SERVER=ON -DWITH_SAMPLE=OFF -DWITH_CLIENT=OFF \
  -DWITH_CLIENT_COMMON=ON -DWITH_CHANNELS=ON -DWITH_CLIENT_CHANNELS=ON -DWITH_SERVER_CHANNELS=ON \
  -DWITH_PROXY=OFF -DWITH_SHADOW=OFF -DWITH_PLATFORM_SERVER=OFF -DWITH_RDTK=OFF -DWITH_UWAC=OFF \
  -DWITH_WINPR_TOOLS=OFF -DWITH_MANPAGES=OFF -DBUILD_TESTING=OFF -DWITH_X11=OFF -DWITH_WAYLAND=OFF \
  -DWITH_FFMPEG=OFF -DWITH_DSP_FFMPEG=OFF -DWITH_SWSCALE=OFF -DWITH_CAIRO=OFF -DWITH_OPENH264=OFF \
  -DWITH_H264_EXTERNAL=ON \
  -DWITH_OPENCL=OFF -DWITH_JPEG=OFF -DWITH_PCSC=OFF -DWITH_CUPS=OFF -DWITH_FUSE=OFF -DWITH_KRB5=OFF \
  -DWITH_PKCS11=OFF -DWITH_AAD=OFF -DWITH_ALSA=OFF -DWITH_PULSE=OFF -DWITH_OSS=OFF -DWITH_SDL=OFF \
  -DWITH_CLIENT_SDL=OFF -DWITH_LIBSYSTEMD=OFF -DWITH_SMARTCARD_EMULATE=OFF -DWITH_FDK_AAC=OFF \
  -DWITH_LAME=OFF -DWITH_FAAD2=OFF -DWITH_FAAC=OFF -DWITH_GSM=OFF -DWITH_SOXR=OFF -DWITH_URIPARSER=OFF \
  -DWITH_WEBVIEW=OFF -DWITH_SSO_MIB=OFF -DWITH_ICU=OFF -DWITH_CJSON_REQUIRED=OFF -DWITH_JSONC_REQUIRED=OFF \
  -DWITH_JSON_DISABLED=ON -DWITH_UNICODE_BUILTIN=ON -DWITH_INTERNAL_RC4=ON -DWITH_INTERNAL_MD4=ON \
  -DCMAKE_POSITION_INDEPENDENT_CODE=OFF -DWITH_INTERNAL_MD5=ON -DWITH_SIMD=ON -DWITH_AVX2=OFF -DWITH_VERBOSE_WINPR_ASSERT=OFF \
  -DWITH_MBEDTLS=OFF -DWITH_LIBRESSL=OFF -DWITH_INSTALL_CLIENT_DESKTOP_FILES=OFF \
  -DCMAKE_INTERPROCEDURAL_OPTIMIZATION=OFF -DWITH_FREERDP_DEPRECATED_COMMANDLINE=OFF \
  -DWINPR_HAVE_SYS_EVENTFD_H=0 -DWINPR_HAVE_SYS_TIMERFD_H=0 -DWITH_TIMEZONE_ICU=OFF \
  -DUSE_UNWIND=OFF -DUSE_EXECINFO=OFF \
  "${FREERDP_CHANNELS_OFF[@]}" "${SERVER_CHANNELS_OFF[@]}" >configure.log 2>&1 || { tail -60 configure.log; exit 1; }
nice -n 10 ninja -j"$(nproc)" >ninja.log 2>&1 || { grep -B2 -A12 'FAILED\|error:' ninja.log | head -80; exit 1; }
ninja install >install.log 2>&1 || { tail -30 install.log; exit 1; }
