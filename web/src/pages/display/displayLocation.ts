// What the display page learns from its URL: /display/<id>#token=…&…, plus
// ?hud=1, ?renderer=canvas2d, ?gpusync=1, and the display's own limits on what the RDP
// client advertises: ?gfx=0 (no graphics pipeline), ?codecs=planar,remotefx
// (e.g. lossless only, for pixel-exact signage or tests) and ?audiocodecs=pcm
// (sound formats: pcm, opus; Opus is taken only where the browser decodes it). The token moves to localStorage and out of
// the address bar, so a reload still works and the token is not left on show.

import { tokenStorageKey } from '@lanterna/protocol';

export interface DisplayLocation {
  readonly displayId: string;
  readonly token: string | null;
  readonly hud: boolean;
  readonly preferCanvas2D: boolean;
  /** ?gpusync=1: the renderer waits for the GPU after uploads and draws, so a present's end includes the GPU's draw (benchmarks). */
  readonly gpuSync: boolean;
  /** Engine settings this display imposes (RdpSessionSettings.extra). */
  readonly engineOptions: Readonly<Record<string, unknown>>;
}

function engineOptionsFrom(query: URLSearchParams): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  const gfx = query.get('gfx');
  if (gfx !== null) options.gfx = gfx !== '0' && gfx !== 'false';
  const codecs = query.get('codecs');
  if (codecs !== null) options.codecs = codecs.split(',').map((c) => c.trim()).filter((c) => c !== '');
  const audioCodecs = query.get('audiocodecs');
  if (audioCodecs !== null) options.audioCodecs = audioCodecs.split(',').map((c) => c.trim().toLowerCase()).filter((c) => c !== '');
  return options;
}

export function readDisplayLocation(location: Location, storage: Storage, history: History): DisplayLocation {
  const segments = location.pathname.split('/').filter((s) => s !== '');
  const displayId = decodeURIComponent(segments[segments.length - 1] ?? '');
  const fragment = new URLSearchParams(location.hash.replace(/^#/, ''));
  const fromFragment = fragment.get('token');
  if (fromFragment !== null && fromFragment !== '') {
    storage.setItem(tokenStorageKey(displayId), fromFragment);
    fragment.delete('token');
    const rest = fragment.toString();
    history.replaceState(null, '', `${location.pathname}${location.search}${rest ? `#${rest}` : ''}`);
  }
  const query = new URLSearchParams(location.search);
  return {
    displayId,
    token: storage.getItem(tokenStorageKey(displayId)),
    hud: query.get('hud') === '1',
    preferCanvas2D: query.get('renderer') === 'canvas2d',
    gpuSync: query.get('gpusync') === '1',
    engineOptions: engineOptionsFrom(query),
  };
}

/** ws(s)://host/<path> for a page served over http(s). */
export function socketUrl(location: Location, path: string): string {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${location.host}${path}`;
}
