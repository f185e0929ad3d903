// The display page's one hook into ink (issue 30): the layer, its uploads
// with the display's token, and no long-press menus on the kiosk.
import { InkLayer, suppressContextMenu } from './inkLayer.js';
import { uploadInk } from './inkUpload.js';

export interface InkHookOptions {
  readonly displayId: string;
  /** The display's token; null: the page cannot save (it is not connected either). */
  readonly token: string | null;
  snapshot(): Promise<ImageBitmap | null>;
}

export function installInk(parent: HTMLElement, options: InkHookOptions): InkLayer {
  suppressContextMenu(window);
  const { displayId, token } = options;
  return new InkLayer(parent, {
    snapshot: () => options.snapshot(),
    upload: (surface, png) => (token === null ? Promise.resolve({ ok: false, code: 'unauthorized' }) : uploadInk(displayId, token, surface, png)),
  });
}
