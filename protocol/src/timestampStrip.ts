// The timestamp strip: a band of large black and white cells the lab paints on
// the presenter's screen, every frame, carrying the wall clock in ms; the
// display page reads it back from the frame it draws, so presenter-screen →
// kiosk-draw latency is measured, not estimated. Both ends share one machine's
// clock (CLOCK_REALTIME in ms, mod 2^32: ≈ 49.7 days before it wraps, and a
// difference across a wrap still comes out right).
//
// Made to survive lossy codecs at 1920×1080: 24×24-px cells sampled only in
// their 8×8 centre (ringing and chroma subsampling stay at the edges), one
// threshold at mid-grey, a black quiet zone around the cells, the band one
// 64-px row of RemoteFX/progressive tiles tall, a start and an end pattern,
// and a CRC-8 over the four timestamp bytes that turns a torn or smeared
// read into "no reading" rather than a wrong one.

/** The band's place and size on the presenter's screen (px); cells sit on one row inside it. */
export const TIMESTAMP_STRIP = {
  x: 0,
  y: 0,
  width: 1152,
  height: 64,
  cell: 24,
  /** Where the first cell's left edge and the row's top edge are, inside the band. */
  cellsLeft: 12,
  cellsTop: 20,
} as const;

const START = [1, 0, 1, 1, 0] as const;
const END = [0, 1] as const;
const DATA_BITS = 32;
const CHECK_BITS = 8;
/** Cells on the row: start pattern, 32 timestamp bits (MSB first), CRC-8, end pattern. */
export const TIMESTAMP_STRIP_CELLS = START.length + DATA_BITS + CHECK_BITS + END.length;

/** Side of the square sampled at each cell's centre. */
const SAMPLE = 8;
/** Mid-grey on the sum of three 8-bit channels. */
const THRESHOLD = (255 * 3) / 2;

export interface StripRect {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** The stamp a time carries: whole ms, mod 2^32. */
export function stripStamp(epochMs: number): number {
  return Math.floor(epochMs) >>> 0;
}

/** CRC-8 (polynomial 0x07, initial 0) over the stamp's four bytes, big-endian. */
export function stripChecksum(stamp: number): number {
  let crc = 0;
  for (let shift = 24; shift >= 0; shift -= 8) {
    crc ^= (stamp >>> shift) & 0xff;
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 0x80 ? ((crc << 1) ^ 0x07) & 0xff : (crc << 1) & 0xff;
  }
  return crc;
}

/** The row's cells for a stamp: 1 = white, 0 = black. */
export function stripCells(stamp: number): number[] {
  const cells: number[] = [...START];
  const value = stamp >>> 0;
  for (let bit = DATA_BITS - 1; bit >= 0; bit -= 1) cells.push((value >>> bit) & 1);
  const check = stripChecksum(value);
  for (let bit = CHECK_BITS - 1; bit >= 0; bit -= 1) cells.push((check >>> bit) & 1);
  cells.push(...END);
  return cells;
}

/** The white cells of a stamp as rectangles relative to the band's top-left corner (the band itself is black). */
export function stripWhiteRects(stamp: number): StripRect[] {
  const { cell, cellsLeft, cellsTop } = TIMESTAMP_STRIP;
  return stripCells(stamp).flatMap((on, index) => (on === 1 ? [{ x: cellsLeft + index * cell, y: cellsTop, width: cell, height: cell }] : []));
}

/** The screen area the reader samples: the row of cells (absolute screen coordinates). */
export const TIMESTAMP_STRIP_CELL_ROW: StripRect = {
  x: TIMESTAMP_STRIP.x + TIMESTAMP_STRIP.cellsLeft,
  y: TIMESTAMP_STRIP.y + TIMESTAMP_STRIP.cellsTop,
  width: TIMESTAMP_STRIP_CELLS * TIMESTAMP_STRIP.cell,
  height: TIMESTAMP_STRIP.cell,
};

/** Whether any of the rectangles overlaps the row of cells: only then can a frame carry a new stamp. */
export function touchesTimestampStrip(rects: readonly StripRect[]): boolean {
  const row = TIMESTAMP_STRIP_CELL_ROW;
  return rects.some((rect) => rect.x < row.x + row.width && rect.x + rect.width > row.x && rect.y < row.y + row.height && rect.y + rect.height > row.y);
}

/** A 32-bit-pixel frame (RGBA or BGRA: the reader only adds the three colour channels). */
export interface StripFrame {
  readonly pixels: Uint8Array;
  /** Bytes per row. */
  readonly stride: number;
  readonly width: number;
  readonly height: number;
}

/**
 * The stamp the frame's strip shows, or null when there is no readable strip
 * (no strip on this screen, a frame caught mid-change, a codec that smeared it).
 * Reads 47 × 64 pixels.
 */
export function readTimestampStrip(frame: StripFrame): number | null {
  const row = TIMESTAMP_STRIP_CELL_ROW;
  if (frame.width < row.x + row.width || frame.height < row.y + row.height) return null;
  const inset = (TIMESTAMP_STRIP.cell - SAMPLE) / 2;
  const cellOn = (index: number): number => {
    const left = row.x + index * TIMESTAMP_STRIP.cell + inset;
    let sum = 0;
    for (let y = row.y + inset; y < row.y + inset + SAMPLE; y += 1) {
      let offset = y * frame.stride + left * 4;
      for (let x = 0; x < SAMPLE; x += 1, offset += 4) {
        sum += (frame.pixels[offset] ?? 0) + (frame.pixels[offset + 1] ?? 0) + (frame.pixels[offset + 2] ?? 0);
      }
    }
    return sum / (SAMPLE * SAMPLE) > THRESHOLD ? 1 : 0;
  };
  for (let index = 0; index < START.length; index += 1) if (cellOn(index) !== START[index]) return null;
  for (let index = 0; index < END.length; index += 1) if (cellOn(TIMESTAMP_STRIP_CELLS - END.length + index) !== END[index]) return null;
  let stamp = 0;
  for (let bit = 0; bit < DATA_BITS; bit += 1) stamp = ((stamp << 1) | cellOn(START.length + bit)) >>> 0;
  let check = 0;
  for (let bit = 0; bit < CHECK_BITS; bit += 1) check = (check << 1) | cellOn(START.length + DATA_BITS + bit);
  return check === stripChecksum(stamp) ? stamp : null;
}

/** ms from a stamp to `nowEpochMs` (both on one clock), right across the 2^32 wrap. */
export function msSinceStamp(stamp: number, nowEpochMs: number): number {
  return ((stripStamp(nowEpochMs) - stamp) | 0) + (nowEpochMs - Math.floor(nowEpochMs));
}
