#!/usr/bin/env bash
# Makes a Debian 12 (bookworm) base image without a registry: debootstrap's
# minbase variant, set up like the official debian:bookworm-slim (deb822
# sources with updates and security, no docs or man pages), committed with
# buildah. deploy/build-image.sh passes its tag to the Dockerfile as BASE_IMAGE.
# Usage: deploy/base-image.sh [TAG]   (default localhost/lanterna-base:bookworm)
# Env: DEBIAN_MIRROR (default http://deb.debian.org/debian). Needs root,
# debootstrap and buildah.
set -euo pipefail
TAG=${1:-localhost/lanterna-base:bookworm}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

log() { printf '[base-image] %s\n' "$*" >&2; }
for tool in debootstrap buildah; do
  command -v "$tool" >/dev/null || { log "error: $tool is missing (apt-get install $tool)"; exit 1; }
done

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
ROOTFS=$WORK/rootfs

log "debootstrap --variant=minbase bookworm ($MIRROR)"
debootstrap --variant=minbase bookworm "$ROOTFS" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 ||
  { tail -20 "$WORK/debootstrap.log" >&2; log "error: debootstrap failed"; exit 1; }

# What the official slim image does: deb822 sources incl. updates and security,
# and dpkg leaves out documentation, man pages and translations.
rm -f "$ROOTFS/etc/apt/sources.list"
cat >"$ROOTFS/etc/apt/sources.list.d/debian.sources" <<SOURCES
Types: deb
URIs: $MIRROR
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
cat >"$ROOTFS/etc/dpkg/dpkg.cfg.d/slim" <<'DPKG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
DPKG
find "$ROOTFS/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
find "$ROOTFS/usr/share/man" "$ROOTFS/usr/share/info" -mindepth 1 -delete
chroot "$ROOTFS" apt-get clean
rm -rf "$ROOTFS"/var/lib/apt/lists/* "$ROOTFS"/var/cache/apt/*.bin "$ROOTFS"/var/log/*.log

tar -C "$ROOTFS" --numeric-owner -cf "$WORK/rootfs.tar" .
container=$(buildah from -q scratch)
buildah add -q "$container" "$WORK/rootfs.tar" / >/dev/null
buildah config --cmd /bin/bash --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$container"
buildah commit -q --rm "$container" "$TAG" >/dev/null
log "committed $TAG ($(buildah images --format '{{.Size}}' "$TAG"))"
