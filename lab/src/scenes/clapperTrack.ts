// The clapperboard's two halves on one clock (issue 27): a white flash and a
// click at every whole second of this machine's wall clock (Date.now()). The
// picture is a flash drawn when the second comes; the sound is a stream of
// silence, written as real time goes, in which each click starts at the frame
// that plays at that second. Pure: the session's program
// (clapperboardCli.ts) does the X and PipeWire I/O.

/** What the clapperboard plays and shows. The click is the browser clapperboard's (e2e/src/bench/clapperboardBench.ts). */
export const CLAPPER = {
  /** xrdp's chansrv and its PipeWire module run at 44.1 kHz. */
  rate: 44_100,
  clickHz: 2000,
  clickMs: 5,
  clickAmplitude: 0.8,
  /** How long the screen stays white. */
  flashMs: 100,
  periodMs: 1000,
} as const;

/** The next flash at or after `nowMs`: the next whole second. */
export function nextFlashAt(nowMs: number): number {
  return Math.ceil(nowMs / CLAPPER.periodMs) * CLAPPER.periodMs;
}

/** The frame of a stream whose frame 0 plays at `originMs` that plays at `epochMs`. */
export function frameAt(originMs: number, epochMs: number, rate: number = CLAPPER.rate): number {
  return Math.round(((epochMs - originMs) * rate) / 1000);
}

const MAX_CHUNK_FRAMES = CLAPPER.rate; // one second: a writer never hands over more at once

/**
 * Frames [from, from + count) of the stream as interleaved 16-bit stereo PCM:
 * silence, and a click (a 2 kHz sine burst, the same on both channels) from
 * the frame that plays at each whole second.
 */
export function clapperFrames(originMs: number, from: number, count: number, rate: number = CLAPPER.rate): Buffer {
  if (!(Number.isInteger(from) && from >= 0 && Number.isInteger(count) && count >= 0 && count <= MAX_CHUNK_FRAMES)) {
    throw new RangeError(`clapper frames: from ${from} count ${count} (at most ${MAX_CHUNK_FRAMES} frames at once)`);
  }
  const pcm = Buffer.alloc(count * 4);
  const clickFrames = Math.round((CLAPPER.clickMs / 1000) * rate);
  for (let i = 0; i < count; i++) {
    const frame = from + i;
    // the second this frame plays in, and that second's click's first frame
    const second = Math.floor((originMs + (frame * 1000) / rate) / CLAPPER.periodMs) * CLAPPER.periodMs;
    let offset = frame - frameAt(originMs, second, rate);
    // rounding may put a frame just before its second's first click frame: then it belongs to the one before
    if (offset < 0) offset = frame - frameAt(originMs, second - CLAPPER.periodMs, rate);
    if (offset < 0 || offset >= clickFrames) continue;
    const value = Math.round(32767 * CLAPPER.clickAmplitude * Math.sin((2 * Math.PI * CLAPPER.clickHz * offset) / rate));
    pcm.writeInt16LE(value, i * 4);
    pcm.writeInt16LE(value, i * 4 + 2);
  }
  return pcm;
}
