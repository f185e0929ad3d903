#!/usr/bin/env bash
# The benchmark's native twin of scripts/freerdp.sh (keep the two in step):
# the same tarball, patches and options, built with the host compiler and the
# system OpenSSL, so wasm and native run the same FreeRDP code. Static
# libraries: WinPR, libfreerdp (core, GDI, codecs), client-common with the
# same channels (unpacking, patches and channel list: ../scripts/freerdp-source.sh).
# One difference on purpose: H.264 is decoded by FreeRDP's own FFmpeg backend
# here (Debian's libavcodec), where the wasm build hands it to WebCodecs, so
# the twin's picture is what native FreeRDP draws from the same stream.
# Usage: freerdp-native.sh <orig tarball> <patch dir> <install prefix>
set -euo pipefail
# shellcheck source=../scripts/freerdp-source.sh
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/freerdp-source.sh"
TARBALL=$1 PATCHES=$2 PREFIX=$3
WORK=$(mktemp -d "${PREFIX}.work.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir "$WORK/build"
freerdp_unpack_patched "$TARBALL" "$PATCHES" "$WORK/src"

CFLAGS="-O2 -pthread -msse4.2 -mssse3"
freerdp_channel_switches "$WORK/src"

cd "$WORK/build"
cmake "$WORK/src" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_INSTALL_PREFIX="$PREFIX" -DCMAKE_C_FLAGS="$CFLAGS" \
  -DBUILD_SHARED_LIBS=OFF -DWITH_SERVER=OFF -DWITH_SAMPLE=OFF -DWITH_CLIENT=OFF \
  -DWITH_CLIENT_COMMON=ON -DWITH_CHANNELS=ON -DWITH_CLIENT_CHANNELS=ON -DWITH_SERVER_CHANNELS=OFF \
  -DWITH_PROXY=OFF -DWITH_SHADOW=OFF -DWITH_PLATFORM_SERVER=OFF -DWITH_RDTK=OFF -DWITH_UWAC=OFF \
  -DWITH_WINPR_TOOLS=OFF -DWITH_MANPAGES=OFF -DBUILD_TESTING=OFF -DWITH_X11=OFF -DWITH_WAYLAND=OFF \
  -DWITH_FFMPEG=ON -DWITH_VIDEO_FFMPEG=ON -DWITH_DSP_FFMPEG=OFF -DWITH_VAAPI=OFF \
  -DWITH_SWSCALE=OFF -DWITH_CAIRO=OFF -DWITH_OPENH264=OFF \
  -DWITH_OPENCL=OFF -DWITH_JPEG=OFF -DWITH_PCSC=OFF -DWITH_CUPS=OFF -DWITH_FUSE=OFF -DWITH_KRB5=OFF \
  -DWITH_PKCS11=OFF -DWITH_AAD=OFF -DWITH_ALSA=OFF -DWITH_PULSE=OFF -DWITH_OSS=OFF -DWITH_SDL=OFF \
  -DWITH_CLIENT_SDL=OFF -DWITH_LIBSYSTEMD=OFF -DWITH_SMARTCARD_EMULATE=OFF -DWITH_FDK_AAC=OFF \
  -DWITH_LAME=OFF -DWITH_FAAD2=OFF -DWITH_FAAC=OFF -DWITH_GSM=OFF -DWITH_SOXR=OFF -DWITH_URIPARSER=OFF \
  -DWITH_WEBVIEW=OFF -DWITH_SSO_MIB=OFF -DWITH_ICU=OFF -DWITH_CJSON_REQUIRED=OFF -DWITH_JSONC_REQUIRED=OFF \
  -DWITH_JSON_DISABLED=ON -DWITH_UNICODE_BUILTIN=ON -DWITH_INTERNAL_RC4=ON -DWITH_INTERNAL_MD4=ON \
  -DWITH_INTERNAL_MD5=ON -DWITH_SIMD=ON -DWITH_AVX2=OFF -DWITH_VERBOSE_WINPR_ASSERT=OFF \
  -DWITH_MBEDTLS=OFF -DWITH_LIBRESSL=OFF -DWITH_INSTALL_CLIENT_DESKTOP_FILES=OFF \
  -DCMAKE_INTERPROCEDURAL_OPTIMIZATION=OFF -DWITH_FREERDP_DEPRECATED_COMMANDLINE=OFF \
  -DWINPR_HAVE_SYS_EVENTFD_H=0 -DWINPR_HAVE_SYS_TIMERFD_H=0 -DWITH_TIMEZONE_ICU=OFF \
  -DUSE_UNWIND=OFF -DUSE_EXECINFO=OFF \
  "${FREERDP_CHANNELS_OFF[@]}" >configure.log 2>&1 || { tail -60 configure.log; exit 1; }
nice -n 10 ninja -j"$(nproc)" >ninja.log 2>&1 || { grep -B2 -A12 'FAILED\|error:' ninja.log | head -80; exit 1; }
ninja install >install.log 2>&1 || { tail -30 install.log; exit 1; }
