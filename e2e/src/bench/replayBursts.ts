// The server's side of a recorded session cut the way the gateway sends it to
// a kiosk: whole PDUs coalesced into binary frames of at most 256 KiB
// (docs/kiosk-protocol.md), a new frame wherever the recording shows a pause,
// each due when the recording received its first PDU. The page's decode clock
// starts at the first frame after a paint, so a burst that reached the
// recorded client at once must reach the page at once too.
import type { RecordedPdu } from '@lanterna/lab';

export interface ReplayBurst {
  /** Ms after the recording's first server PDU. */
  readonly atMs: number;
  /** Whole PDUs, back to back. */
  readonly data: Buffer;
}

export interface BurstOptions {
  /** PDUs closer than this to the previous one belong to the same burst. */
  readonly gapMs?: number;
  /** The gateway's cap on one binary frame. */
  readonly maxBytes?: number;
}

export function serverBursts(records: readonly RecordedPdu[], options: BurstOptions = {}): ReplayBurst[] {
  const gapMs = options.gapMs ?? 2;
  const maxBytes = options.maxBytes ?? 256 * 1024;
  const bursts: ReplayBurst[] = [];
  let pieces: Buffer[] = [];
  let bytes = 0;
  let startTick = 0;
  let burstTick = 0;
  let lastTick = Number.NEGATIVE_INFINITY;
  const flush = (): void => {
    if (pieces.length > 0) bursts.push({ atMs: burstTick - startTick, data: Buffer.concat(pieces, bytes) });
    pieces = [];
    bytes = 0;
  };
  for (const record of records) {
    if (record.direction !== 'server-to-client') continue;
    if (bursts.length === 0 && pieces.length === 0) startTick = record.tickMs;
    if (record.tickMs - lastTick > gapMs || bytes + record.data.length > maxBytes) {
      flush();
      burstTick = record.tickMs;
    }
    pieces.push(record.data);
    bytes += record.data.length;
    lastTick = record.tickMs;
  }
  flush();
  return bursts;
}
