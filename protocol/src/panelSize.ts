// What a display's panel is and which desktop a session asks of the server
// for it (docs/kiosk-protocol.md, "The panel and the desktop"). The display
// page reports its panel in the `panel` message; an admin may fix a display's
// desktop (`DesktopPreference`, carried to the page in `welcome.display` and
// `display`); the page computes the desktop with `desktopForPanel` at each
// session's start and at each panel change (Display Control resizes), and the
// gateway computes the same for the admin's view. Pure, like the package.
import * as z from 'zod/mini';

/** The largest desktop asked for: 4K, landscape or portrait (the client's 768 MiB heap is sized for it). */
export const DESKTOP_MAX_LONG_SIDE = 3840;
export const DESKTOP_MAX_SHORT_SIDE = 2160;
/** [MS-RDPEDISP] 2.2.2.2.1 and [MS-RDPBCGR] monitor sizes start at 200. */
export const DESKTOP_MIN_SIDE = 200;
/** [MS-RDPBCGR] 2.2.1.3.2: the desktop scale factor's range, in percent. */
export const DESKTOP_SCALE_MIN = 100;
export const DESKTOP_SCALE_MAX = 500;

/** What the page knows of its panel. `width`×`height` are device pixels (CSS size × devicePixelRatio). */
export const panelSchema = z.object({
  cssWidth: z.int().check(z.minimum(1), z.maximum(65_535)),
  cssHeight: z.int().check(z.minimum(1), z.maximum(65_535)),
  devicePixelRatio: z.number().check(z.positive(), z.maximum(16)),
  width: z.int().check(z.minimum(1), z.maximum(65_535)),
  height: z.int().check(z.minimum(1), z.maximum(65_535)),
  orientation: z.enum(['landscape', 'portrait']),
  /** The physical output as the kiosk launcher sees it (xrandr), where it knows it. */
  output: z.optional(z.object({
    name: z.optional(z.string().check(z.maxLength(64))),
    width: z.int().check(z.minimum(1), z.maximum(65_535)),
    height: z.int().check(z.minimum(1), z.maximum(65_535)),
  })),
});
export type Panel = z.infer<typeof panelSchema>;

/**
 * A display's desktop as an admin fixed it; each part absent means "from the
 * panel". `width` and `height` come together (a fixed desktop size); `scale` is
 * the desktop scale factor in percent.
 */
export const desktopPreferenceSchema = z.object({
  width: z.optional(z.int().check(z.minimum(DESKTOP_MIN_SIDE), z.maximum(DESKTOP_MAX_LONG_SIDE))),
  height: z.optional(z.int().check(z.minimum(DESKTOP_MIN_SIDE), z.maximum(DESKTOP_MAX_LONG_SIDE))),
  scale: z.optional(z.int().check(z.minimum(DESKTOP_SCALE_MIN), z.maximum(DESKTOP_SCALE_MAX))),
});
export type DesktopPreference = z.infer<typeof desktopPreferenceSchema>;

/** What a session asks of the server: the desktop in pixels and both scale factors ([MS-RDPBCGR] 2.2.1.3.2). */
export interface Desktop {
  readonly width: number;
  readonly height: number;
  /** Percent, 100–500: how large the server draws text and controls. */
  readonly desktopScale: number;
  /** 100, 140 or 180: the device scale the desktop scale falls into. */
  readonly deviceScale: 100 | 140 | 180;
}

export type PanelOutput = NonNullable<Panel['output']>;

/**
 * The kiosk launcher's `?output=NAME:WxH` (kiosk/src/xOutput.ts), checked as
 * the panel's schema checks it; null when absent or not of that shape.
 */
export function outputFromQuery(value: string | null): PanelOutput | null {
  const match = value === null ? null : /^([^:]{1,64}):(\d{1,5})x(\d{1,5})$/.exec(value);
  if (!match) return null;
  const parsed = panelSchema.shape.output.safeParse({ name: match[1], width: Number(match[2]), height: Number(match[3]) });
  return parsed.success && parsed.data ? parsed.data : null;
}

/** The panel as the page measures it: CSS pixels × devicePixelRatio, rounded; `output` where the kiosk launcher said it. */
export function panelFromWindow(cssWidth: number, cssHeight: number, devicePixelRatio: number, output: PanelOutput | null = null): Panel {
  const ratio = Number.isFinite(devicePixelRatio) && devicePixelRatio > 0 ? devicePixelRatio : 1;
  const cw = Math.max(1, Math.round(cssWidth));
  const ch = Math.max(1, Math.round(cssHeight));
  const width = Math.max(1, Math.round(cw * ratio));
  const height = Math.max(1, Math.round(ch * ratio));
  return { cssWidth: cw, cssHeight: ch, devicePixelRatio: ratio, width, height, orientation: height > width ? 'portrait' : 'landscape', ...(output ? { output } : {}) };
}

/**
 * The desktop size for a panel of `width`×`height` device pixels: the panel
 * itself when it fits 3840×2160 (or 2160×3840 upright), else scaled down
 * into it keeping the panel's shape; at least 200 each way; the width even
 * ([MS-RDPEDISP] refuses odd widths, and FreeRDP's servers round them).
 */
export function desktopSizeForPanel(width: number, height: number): { width: number; height: number } {
  const portrait = height > width;
  const maxW = portrait ? DESKTOP_MAX_SHORT_SIDE : DESKTOP_MAX_LONG_SIDE;
  const maxH = portrait ? DESKTOP_MAX_LONG_SIDE : DESKTOP_MAX_SHORT_SIDE;
  const w0 = Math.max(1, Math.round(width));
  const h0 = Math.max(1, Math.round(height));
  const fit = Math.min(1, maxW / w0, maxH / h0);
  const w = Math.min(maxW, Math.max(DESKTOP_MIN_SIDE, Math.floor(w0 * fit)));
  const h = Math.min(maxH, Math.max(DESKTOP_MIN_SIDE, Math.floor(h0 * fit)));
  return { width: w - (w % 2), height: h };
}

/**
 * The scale a desktop of this size gets unless an admin says otherwise: text
 * as large as on a 1080-line desktop, in the steps Windows offers (100, 125,
 * 150, 175, 200, 250, 300 %). 3840×2160 → 200 %, 2560×1440 → 125 %, 1920×1080,
 * 1366×768 and 1080×1920 (portrait) → 100 %.
 */
export function defaultDesktopScale(width: number, height: number): number {
  const lines = Math.min(width, height);
  const wanted = (lines / 1080) * 100;
  const steps = [100, 125, 150, 175, 200, 250, 300];
  let best = 100;
  for (const step of steps) if (step <= wanted + 1e-9) best = step;
  return best;
}

/** The device scale factor a desktop scale falls into ([MS-RDPBCGR] allows only 100, 140, 180). */
export function deviceScaleFor(desktopScale: number): 100 | 140 | 180 {
  if (desktopScale >= 180) return 180;
  if (desktopScale >= 140) return 140;
  return 100;
}

/** The desktop a session asks for on this panel, with the display's preference applied. */
export function desktopForPanel(panel: { readonly width: number; readonly height: number }, preference: DesktopPreference = {}): Desktop {
  const fixed = preference.width !== undefined && preference.height !== undefined;
  const size = desktopSizeForPanel(fixed ? preference.width ?? 0 : panel.width, fixed ? preference.height ?? 0 : panel.height);
  const desktopScale = preference.scale ?? defaultDesktopScale(size.width, size.height);
  return { ...size, desktopScale, deviceScale: deviceScaleFor(desktopScale) };
}
