// A meeting room's layout (issue 29): up to four sources on one display, each
// in its own slot, and where each slot sits on the panel. Pure: the gateway
// computes the rectangles it tells the page (`layout` on the control socket),
// and the page (and later each source's session, asking for its slot's size)
// reads the same numbers.

/** Most sources one display shows at once. */
export const MAX_ROOM_SLOTS = 4;

/**
 * full: one source fills the panel (the large one); side-by-side: equal
 * columns, one per source; grid: 2×2; one-large: the large source on the
 * left three quarters, the others stacked on the right.
 */
export const ROOM_LAYOUTS = ['full', 'side-by-side', 'grid', 'one-large'] as const;
export type RoomLayout = (typeof ROOM_LAYOUTS)[number];

/**
 * open: anyone with the room PIN joins a free slot, or takes one over when
 * asked to; moderated: requests wait until the moderator (the admin API, or
 * the presenter marked as the room's host) accepts them.
 */
export const ROOM_MODES = ['open', 'moderated'] as const;
export type RoomMode = (typeof ROOM_MODES)[number];

/** Where a slot sits on the panel, as fractions of its width and height (0..1); a hidden slot has width and height 0. */
export interface SlotRect {
  readonly slot: number;
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/**
 * The rectangle of every occupied slot (in slot order) for a layout. `large`
 * names the slot `full` shows and `one-large` enlarges; when it is not
 * occupied the lowest occupied slot stands in. One source always fills the
 * panel, whatever the layout, so a room with one presenter looks as a display
 * always has.
 */
export function slotRects(layout: RoomLayout, occupied: readonly number[], large: number): SlotRect[] {
  const slots = [...new Set(occupied)].filter((slot) => Number.isInteger(slot) && slot >= 0 && slot < MAX_ROOM_SLOTS).sort((a, b) => a - b);
  if (slots.length === 0) return [];
  const big = slots.includes(large) ? large : slots[0] ?? 0;
  const whole = (slot: number): SlotRect => ({ slot, x: 0, y: 0, width: 1, height: 1 });
  const hidden = (slot: number): SlotRect => ({ slot, x: 0, y: 0, width: 0, height: 0 });
  if (slots.length === 1) return slots.map(whole);
  switch (layout) {
    case 'full':
      return slots.map((slot) => (slot === big ? whole(slot) : hidden(slot)));
    case 'side-by-side':
      return slots.map((slot, index) => ({ slot, x: index / slots.length, y: 0, width: 1 / slots.length, height: 1 }));
    case 'grid':
      // Two sources in a 2×2 grid would leave half the panel empty: they stand side by side, full height.
      if (slots.length === 2) return slots.map((slot, index) => ({ slot, x: index / 2, y: 0, width: 0.5, height: 1 }));
      return slots.map((slot, index) => ({ slot, x: (index % 2) / 2, y: Math.floor(index / 2) / 2, width: 0.5, height: 0.5 }));
    case 'one-large': {
      const small = slots.filter((slot) => slot !== big);
      const rects = new Map<number, SlotRect>([[big, { slot: big, x: 0, y: 0, width: 0.75, height: 1 }]]);
      small.forEach((slot, index) => rects.set(slot, { slot, x: 0.75, y: index / small.length, width: 0.25, height: 1 / small.length }));
      return slots.map((slot) => rects.get(slot) ?? hidden(slot));
    }
  }
}

/** A slot's rectangle in whole pixels of a panel (edges rounded, so neighbours meet without a gap). */
export function slotPixels(rect: SlotRect, panel: { readonly width: number; readonly height: number }): { x: number; y: number; width: number; height: number } {
  const left = Math.round(rect.x * panel.width);
  const top = Math.round(rect.y * panel.height);
  const right = Math.round((rect.x + rect.width) * panel.width);
  const bottom = Math.round((rect.y + rect.height) * panel.height);
  return { x: left, y: top, width: right - left, height: bottom - top };
}
