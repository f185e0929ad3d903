# Sourced by scripts/freerdp.sh (wasm) and bench/freerdp-native.sh (its native
# twin): one place unpacks and patches the tarball and picks the channels, so
# the two builds cannot drift apart (the wasm/native comparison and replays
# need the same code and the same channel list on both sides).
#
# The channels a projector needs: drdynvc, rdpgfx, disp, remdesk, encomsp;
# rdpei, because client-common's pen code does not build without it; rdpdr,
# which client-common loads whenever auto-detect or heartbeats are on, and
# rdpsnd, which it then adds with its "fake" (silent) backend; cliprdr, joined
# in every session because some servers end a session without it (Weston's
# RDP backend), its handshake answered with an empty clipboard and no content
# carried (../src/clipboard_handshake.c says why).
FREERDP_CHANNELS_KEPT='client|server|drdynvc|rdpgfx|disp|remdesk|encomsp|rdpei|rdpdr|rdpsnd|cliprdr'

# freerdp_unpack_patched <orig tarball> <patch dir> <source dir>
freerdp_unpack_patched() {
  local tarball=$1 patches=$2 src=$3 patch
  mkdir -p "$src"
  tar -xf "$tarball" -C "$src" --strip-components=1
  for patch in "$patches"/*.patch; do
    patch -d "$src" -p1 --forward --batch --quiet <"$patch" || { echo "patch failed: $patch" >&2; return 1; }
  done
}

# freerdp_channel_switches <source dir>: sets FREERDP_CHANNELS_OFF to the
# -DCHANNEL_X=OFF switches for every channel not kept
freerdp_channel_switches() {
  local ch name
  FREERDP_CHANNELS_OFF=()
  for ch in "$1"/channels/*/; do
    name=$(basename "$ch")
    [[ $name =~ ^($FREERDP_CHANNELS_KEPT)$ ]] || FREERDP_CHANNELS_OFF+=("-DCHANNEL_${name^^}=OFF")
  done
}
