#!/usr/bin/env bash
# Stage 1: OpenSSL 3.0 (Debian bookworm's source) as static wasm libraries.
# Usage: openssl.sh <orig tarball> <install prefix>. Called by wasm/build.sh, which
# keys the cache on this file's content, so any change here rebuilds this stage.
set -euo pipefail
TARBALL=$1 PREFIX=$2
WORK=$(mktemp -d "${PREFIX}.work.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
tar -xf "$TARBALL" -C "$WORK" --strip-components=1
cd "$WORK"
# linux-generic32 + no-asm: wasm32 is a plain 32-bit target; no threads-free
# build because the client links with -pthread and every object must agree.
CC=emcc AR=emar RANLIB=emranlib CFLAGS="-O2 -pthread" \
  ./Configure linux-generic32 no-asm no-shared no-dso no-engine no-afalgeng \
  no-async no-tests no-ui-console no-module --prefix="$PREFIX" --openssldir=/nonexistent \
  >configure.log
nice -n 10 make -s -j"$(nproc)" build_libs >make.log 2>&1 || { tail -40 make.log; exit 1; }
make -s install_dev >/dev/null
