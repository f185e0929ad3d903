// Sends the display's ink PNG to the gateway (docs/presenter-api.md, "Ink"):
// a presenter's picture under `/ink?session=ID`, the idle whiteboard under
// `/whiteboard`, with the display's own token. The answer's code (or
// `unreachable`) comes back for the layer to word.
import { inkPath, whiteboardPath } from '@lanterna/protocol';
import type { InkSurface } from './inkLayer.js';

/** A save that has not been answered in this long is given up (the PNG may be megabytes on a slow link). */
const UPLOAD_DEADLINE_MS = 30_000;

export async function uploadInk(displayId: string, token: string, surface: InkSurface, png: Blob): Promise<{ ok: true } | { ok: false; code: string }> {
  const path = surface.kind === 'session'
    ? `${inkPath(displayId)}?session=${encodeURIComponent(surface.sessionId)}`
    : whiteboardPath(displayId);
  try {
    const response = await fetch(path, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'image/png' },
      body: png,
      cache: 'no-store',
      credentials: 'omit',
      signal: AbortSignal.timeout(UPLOAD_DEADLINE_MS),
    });
    if (response.ok) return { ok: true };
    const body = (await response.json().catch(() => ({}))) as { code?: unknown };
    return { ok: false, code: typeof body.code === 'string' ? body.code : 'internal' };
  } catch {
    return { ok: false, code: 'unreachable' };
  }
}
