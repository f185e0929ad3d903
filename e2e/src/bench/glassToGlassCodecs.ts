// The codecs the glass-to-glass benchmark runs, in one place: how to make
// FreeRDP's shadow server send each one (it picks its GFX codec from its own
// switches, whatever the client advertises, so the others are switched off)
// and what the display page is told to advertise (?codecs=, the display's
// own limit). H.264 needs no server switch: with its GFX defaults the shadow
// server sends AVC444v2 to a client that offers it, and AVC420 to one that
// offers only that (the page offers AVC only where WebCodecs decodes it).

export interface ServerCodec {
  /** The name in the table and on the command line (--codecs). */
  readonly name: string;
  /** The GFX pipeline (false: RemoteFX surface bits, `-gfx`). */
  readonly gfx: boolean;
  /** Extra freerdp-shadow-cli3 switches that leave only this codec. */
  readonly serverArgs: readonly string[];
  /** The display page's ?codecs= value, when it must narrow what the client advertises. */
  readonly kioskCodecs?: string;
}

export const SERVER_CODECS: readonly ServerCodec[] = [
  { name: 'planar', gfx: true, serverArgs: ['-gfx-progressive', '-gfx-rfx'], kioskCodecs: 'planar' },
  { name: 'remotefx', gfx: false, serverArgs: [] },
  { name: 'progressive', gfx: true, serverArgs: [], kioskCodecs: 'progressive' },
  { name: 'avc420', gfx: true, serverArgs: [], kioskCodecs: 'planar,progressive,avc420' },
  { name: 'avc444', gfx: true, serverArgs: [] },
];

/** The named codecs, in the table's order; throws naming the unknown ones. */
export function selectCodecs(names: readonly string[] | undefined): ServerCodec[] {
  if (names === undefined) return [...SERVER_CODECS];
  const unknown = names.filter((name) => !SERVER_CODECS.some((codec) => codec.name === name));
  if (unknown.length > 0) throw new Error(`unknown codec ${unknown.join(', ')} (known: ${SERVER_CODECS.map((codec) => codec.name).join(', ')})`);
  return SERVER_CODECS.filter((codec) => names.includes(codec.name));
}
