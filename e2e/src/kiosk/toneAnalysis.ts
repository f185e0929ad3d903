// What a display rendered, read as sound: where a tone starts, its frequency
// (zero crossings, interpolated), its amplitude (RMS), and whether it is one
// continuous sine (a dropout, a repeated or skipped block shows up in the
// sine's second difference, which for a clean sine is -4·sin²(πf/R)·x[n]).

/** One channel of interleaved stereo. */
export function channel(interleaved: Float32Array, which: 0 | 1): Float32Array {
  const out = new Float32Array(Math.floor(interleaved.length / 2));
  for (let i = 0; i < out.length; i++) out[i] = interleaved[i * 2 + which] ?? 0;
  return out;
}

/** The first sample louder than `threshold`, or -1. */
export function onset(samples: Float32Array, threshold = 0.02): number {
  return samples.findIndex((value) => Math.abs(value) > threshold);
}

/** Frequency from the rising zero crossings in the window (interpolated between samples). */
export function frequency(samples: Float32Array, rate: number): number {
  const crossings: number[] = [];
  for (let i = 1; i < samples.length; i++) {
    const a = samples[i - 1] ?? 0;
    const b = samples[i] ?? 0;
    if (a < 0 && b >= 0) crossings.push(i - 1 + a / (a - b));
  }
  const first = crossings[0];
  const last = crossings.at(-1);
  if (first === undefined || last === undefined || crossings.length < 3) return 0;
  return ((crossings.length - 1) * rate) / (last - first);
}

/** Peak amplitude of a sine, from its RMS. */
export function amplitude(samples: Float32Array): number {
  let sum = 0;
  for (const value of samples) sum += value * value;
  return Math.sqrt(sum / Math.max(1, samples.length)) * Math.SQRT2;
}

export function peak(samples: Float32Array): number {
  let max = 0;
  for (const value of samples) max = Math.max(max, Math.abs(value));
  return max;
}

/**
 * Samples where the signal leaves a clean sine of `hz` by more than
 * `tolerance` (after the expected curvature is taken out), or fall silent: none
 * for a continuous tone; a jump or a repeated block gives a few each, a gap one per silent sample.
 */
export function discontinuities(samples: Float32Array, hz: number, rate: number, tolerance: number): number[] {
  const curvature = 4 * Math.sin((Math.PI * hz) / rate) ** 2;
  const at: number[] = [];
  for (let i = 1; i + 1 < samples.length; i++) {
    const x = samples[i] ?? 0;
    const residual = (samples[i + 1] ?? 0) - 2 * x + (samples[i - 1] ?? 0) + curvature * x;
    // three samples in a row at zero: a gap (a sine of this amplitude never lingers there)
    const silent = Math.abs(x) < 1e-3 && Math.abs(samples[i - 1] ?? 0) < 1e-3 && Math.abs(samples[i + 1] ?? 0) < 1e-3;
    if (Math.abs(residual) > tolerance || silent) at.push(i);
  }
  return at;
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** The longest stretch of `samples` without a break (see discontinuities): [start, end). */
export function longestRun(samples: Float32Array, breaks: readonly number[]): [number, number] {
  let best: [number, number] = [0, 0];
  let from = 0;
  for (const at of [...breaks, samples.length]) {
    if (at - from > best[1] - best[0]) best = [from, at];
    from = at + 2;
  }
  return best;
}
