#!/usr/bin/env bash
# Builds the FreeRDP 3 WebAssembly client into wasm/build/ from Debian's pinned
# source packages, cached outside the clone in three levels so that changing our
# glue never rebuilds OpenSSL or FreeRDP:
#   $CACHE/openssl-<key>/  OpenSSL 3.0 static libs   (key: tarball, scripts/openssl.sh, emcc)
#   $CACHE/freerdp-<key>/  FreeRDP 3 static libs     (key: openssl key, tarball, patches/, scripts/freerdp{,-source}.sh)
#   $CACHE/<key>/          the linked client          (key: freerdp key, src/, test/hooks/, CMakeLists.txt, this file)
#                          and in test/ its test build: the same objects linked with test/hooks/,
#                          and the presenter's RDP server (src/presenter/, lanterna-presenter.*)
# A warm run only checks stamps and copies the outputs (about a second).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${LANTERNA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lanterna}/wasm
OUT=$HERE/build

# Pinned sources: the Debian version string apt fetches, the orig tarball, its sha256.
FREERDP_DEB_VERSION=3.15.0+dfsg-2.1+deb13u3
FREERDP_ORIG=freerdp3_3.15.0+dfsg.orig.tar.xz
FREERDP_SHA256=221f093417b78e62f565a30dec4001a07645e1e193721a8ed177b69329df6d62
OPENSSL_DEB_VERSION=3.0.20-1~deb12u2
OPENSSL_ORIG=openssl_3.0.20.orig.tar.gz
OPENSSL_SHA256=c80a01dfc70ece4dc21168932c37739042d404d46ccc81a5986dd75314ecda6f

# Debian's emscripten finds its own node modules (acorn, …) only here.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}

log() { printf '[wasm] %s\n' "$*" >&2; }
die() { printf '[wasm] error: %s\n' "$*" >&2; exit 1; }
hash_of() { sha256sum | cut -c1-16; }

mkdir -p "$CACHE/src"
# Others build at the same time (scripts/test.sh); one builder at a time.
exec 9>"$CACHE/.lock"
flock 9

# fetch <package> <debian version> <orig file> <sha256>
fetch() {
  local pkg=$1 version=$2 file=$3 sum=$4 path=$CACHE/src/$3
  if [ ! -f "$path" ] || [ "$(sha256sum "$path" | cut -d' ' -f1)" != "$sum" ]; then
    log "fetching $pkg $version source"
    rm -f "$path"
    # apt may exit non-zero when only the .dsc is missing on the mirror (trixie's
    # freerdp3); the orig tarball's checksum below is what decides.
    (cd "$CACHE/src" && apt-get source --download-only "$pkg=$version" >/dev/null 2>&1) || true
    [ -f "$path" ] || die "apt-get source $pkg=$version did not deliver $file (deb-src lines configured? run scripts/setup.sh)"
  fi
  [ "$(sha256sum "$path" | cut -d' ' -f1)" = "$sum" ] || die "checksum mismatch for $file"
}

# The whole output first: with pipefail, `| head -1` could end emcc with SIGPIPE
# before it finished writing, failing a build at random.
EMCC_OUTPUT=$(emcc --version 2>&1) || die "emcc not usable (apt-get install emscripten): $EMCC_OUTPUT"
EMCC_VERSION=${EMCC_OUTPUT%%$'\n'*}
OPENSSL_KEY=$( { echo "$OPENSSL_SHA256"; cat "$HERE/scripts/openssl.sh"; echo "$EMCC_VERSION"; } | hash_of)
FREERDP_KEY=$( { echo "$OPENSSL_KEY $FREERDP_SHA256"; cat "$HERE/scripts/freerdp.sh" "$HERE/scripts/freerdp-source.sh" "$HERE"/patches/*.patch; echo "$EMCC_VERSION"; } | hash_of)
# src/ has a folder (presenter/): every file under it, in a fixed order
mapfile -t GLUE_FILES < <(cd "$HERE" && find src test/hooks -type f | LC_ALL=C sort)
CLIENT_KEY=$( { echo "$FREERDP_KEY"; cat "$HERE/build.sh" "$HERE/CMakeLists.txt"; (cd "$HERE" && cat "${GLUE_FILES[@]}"); echo "$EMCC_VERSION"; } | hash_of)

OPENSSL_DIR=$CACHE/openssl-$OPENSSL_KEY
FREERDP_DIR=$CACHE/freerdp-$FREERDP_KEY
CLIENT_DIR=$CACHE/$CLIENT_KEY

# stage <dir> <name> <command…>: runs the command into <dir> unless its stamp is there.
stage() {
  local dir=$1 name=$2 start
  shift 2
  [ -f "$dir/.stamp" ] && return
  start=$(date +%s)
  log "building $name (cold, this takes minutes)"
  rm -rf "$dir"
  "$@" || die "$name build failed"
  echo "built $(date -u +%FT%TZ) in $(($(date +%s) - start)) s" >"$dir/.stamp"
  log "$name built in $(($(date +%s) - start)) s"
}

link_client() {
  local work=$CLIENT_DIR.work
  rm -rf "$work"
  if ! emcmake cmake -S "$HERE" -B "$work" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DFREERDP_PREFIX="$FREERDP_DIR" -DOPENSSL_PREFIX="$OPENSSL_DIR" >"$CACHE/client-configure.log" 2>&1; then
    tail -30 "$CACHE/client-configure.log"
    return 1
  fi
  if ! nice -n 10 ninja -C "$work" >"$CACHE/client-ninja.log" 2>&1; then
    grep -A12 'FAILED\|error' "$CACHE/client-ninja.log" | head -60
    return 1
  fi
  mkdir -p "$CLIENT_DIR/test"
  cp "$work"/lanterna-rdp.js "$work"/lanterna-rdp.wasm "$work"/lanterna-rdp.worker.js "$CLIENT_DIR"/
  cp "$work"/lanterna-presenter.js "$work"/lanterna-presenter.wasm "$work"/lanterna-presenter.worker.js "$CLIENT_DIR"/
  cp "$work"/test/lanterna-rdp.js "$work"/test/lanterna-rdp.wasm "$work"/test/lanterna-rdp.worker.js "$CLIENT_DIR"/test/
  # the repo root is "type": "module"; emscripten's output is a classic script
  echo '{ "type": "commonjs" }' >"$CLIENT_DIR/package.json"
  cp "$CLIENT_DIR/package.json" "$CLIENT_DIR/test/package.json"
  rm -rf "$work"
}

fetch openssl "$OPENSSL_DEB_VERSION" "$OPENSSL_ORIG" "$OPENSSL_SHA256"
fetch freerdp3 "$FREERDP_DEB_VERSION" "$FREERDP_ORIG" "$FREERDP_SHA256"
stage "$OPENSSL_DIR" "OpenSSL $OPENSSL_DEB_VERSION" bash "$HERE/scripts/openssl.sh" "$CACHE/src/$OPENSSL_ORIG" "$OPENSSL_DIR"
stage "$FREERDP_DIR" "FreeRDP $FREERDP_DEB_VERSION" bash "$HERE/scripts/freerdp.sh" "$CACHE/src/$FREERDP_ORIG" "$HERE/patches" "$OPENSSL_DIR" "$FREERDP_DIR"
stage "$CLIENT_DIR" "client (glue + link)" link_client

if [ "$(cat "$OUT/.key" 2>/dev/null)" != "$CLIENT_KEY" ]; then
  rm -rf "$OUT.tmp"
  mkdir -p "$OUT.tmp"
  cp "$CLIENT_DIR"/lanterna-rdp.* "$CLIENT_DIR"/lanterna-presenter.* "$CLIENT_DIR/package.json" "$OUT.tmp"/
  cp -r "$CLIENT_DIR/test" "$OUT.tmp/test"
  echo "$CLIENT_KEY" >"$OUT.tmp/.key"
  # where the static libraries are, for bench/build.sh
  printf 'OPENSSL_DIR=%s\nFREERDP_DIR=%s\n' "$OPENSSL_DIR" "$FREERDP_DIR" >"$OUT.tmp/prefixes.env"
  rm -rf "$OUT"
  mv "$OUT.tmp" "$OUT"
fi
log "client $CLIENT_KEY ready in ${OUT#"$PWD"/}"
