// What the presenter page gets of the display's ink (issue 30): the picture
// with the ink that someone at the display saved over this presenter's
// projection (fetched with the stop token, only when it changed), and the
// idle screen's whiteboard for anyone who types the display's PIN.
import { INK_PIN_HEADER, PRESENTER_STOP_TOKEN_HEADER, inkPath, sentenceForInkCode, whiteboardPath } from '@lanterna/protocol';

const FETCH_DEADLINE_MS = 20_000;

export type InkFetch = { readonly kind: 'picture'; readonly png: Blob; readonly etag: string | null } | { readonly kind: 'unchanged' } | { readonly kind: 'refused'; readonly code: string };

async function fetchPng(path: string, headers: Record<string, string>): Promise<InkFetch> {
  let response: Response;
  try {
    response = await fetch(path, { headers, cache: 'no-store', credentials: 'omit', signal: AbortSignal.timeout(FETCH_DEADLINE_MS) });
  } catch {
    return { kind: 'refused', code: 'unreachable' };
  }
  // 304: the picture the page shows already; 204: nothing saved yet.
  if (response.status === 304 || response.status === 204) return { kind: 'unchanged' };
  try {
    if (response.ok && response.headers.get('content-type') === 'image/png') return { kind: 'picture', png: await response.blob(), etag: response.headers.get('etag') };
    const body = (await response.json().catch(() => ({}))) as { code?: unknown };
    return { kind: 'refused', code: typeof body.code === 'string' ? body.code : 'internal' };
  } catch {
    // the body was cut off (deadline, network): asked again at the next check
    return { kind: 'refused', code: 'unreachable' };
  }
}

/** Shows a PNG in an <img> with a download link, replacing the one before (its object URL is let go). */
export class InkPictureView {
  private url: string | null = null;

  constructor(private readonly box: HTMLElement, private readonly image: HTMLImageElement, private readonly download: HTMLAnchorElement) {}

  show(png: Blob): void {
    if (this.url !== null) URL.revokeObjectURL(this.url);
    this.url = URL.createObjectURL(png);
    this.image.src = this.url;
    this.download.href = this.url;
    this.box.hidden = false;
  }
}

/** Follows the ink saved over one projection: call check() as the page follows its state. */
export class ProjectionInk {
  private etag: string | null = null;

  constructor(private readonly view: InkPictureView) {}

  async check(displayId: string, stopToken: string): Promise<void> {
    const headers: Record<string, string> = { [PRESENTER_STOP_TOKEN_HEADER]: stopToken };
    if (this.etag !== null) headers['if-none-match'] = this.etag;
    const got = await fetchPng(inkPath(displayId), headers);
    if (got.kind !== 'picture') return;
    this.etag = got.etag;
    this.view.show(got.png);
    window.dispatchEvent(new CustomEvent('lanterna:ink-received', { detail: { bytes: got.png.size } }));
  }
}

/** The whiteboard of a display for whoever shows its PIN: the picture, or a sentence why not. */
export async function fetchWhiteboard(displayId: string, pin: string): Promise<{ ok: true; png: Blob } | { ok: false; sentence: string }> {
  const got = await fetchPng(whiteboardPath(displayId), { [INK_PIN_HEADER]: pin });
  if (got.kind === 'picture') return { ok: true, png: got.png };
  if (got.kind === 'unchanged') return { ok: false, sentence: sentenceForInkCode('internal') };
  return { ok: false, sentence: got.code === 'unreachable' ? 'The gateway did not answer.' : sentenceForInkCode(got.code) };
}
