// What a display rendered, read as sound: where a tone starts, its frequency
// (zero crossings, interpolated; or the spectrum's peak: a Hann-windowed FFT),
// its amplitude (RMS; or a sine's level at one frequency from the spectrum,
// which codec noise and the other channel's tone leave alone), and whether it
// is one continuous sine (a dropout, a repeated or skipped block shows up in
// the sine's second difference, which for a clean sine is -4·sin²(πf/R)·x[n]).

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

/** The largest power of two ≤ n (at least 2). */
function powerOfTwoBelow(n: number): number {
  let size = 2;
  while (size * 2 <= n) size *= 2;
  return size;
}

interface Spectrum {
  /** |X[k]|² for k = 0 … n/2. */
  readonly power: Float64Array;
  readonly size: number;
  /** Σ w², for levels (Parseval). */
  readonly windowPower: number;
}

/** The power spectrum of the first 2^k samples (Hann window; an in-place radix-2 FFT). */
export function spectrum(samples: Float32Array): Spectrum {
  const size = powerOfTwoBelow(samples.length);
  const re = new Float64Array(size);
  const im = new Float64Array(size);
  let windowPower = 0;
  for (let i = 0; i < size; i++) {
    const w = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (size - 1));
    re[i] = (samples[i] ?? 0) * w;
    windowPower += w * w;
  }
  for (let i = 1, j = 0; i < size; i++) {
    let bit = size >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j] ?? 0, re[i] ?? 0];
      [im[i], im[j]] = [im[j] ?? 0, im[i] ?? 0];
    }
  }
  for (let length = 2; length <= size; length *= 2) {
    const angle = (-2 * Math.PI) / length;
    for (let start = 0; start < size; start += length) {
      for (let k = 0; k < length / 2; k++) {
        const [wr, wi] = [Math.cos(angle * k), Math.sin(angle * k)];
        const a = start + k;
        const b = a + length / 2;
        const [br, bi] = [re[b] ?? 0, im[b] ?? 0];
        const [tr, ti] = [br * wr - bi * wi, br * wi + bi * wr];
        const [ar, ai] = [re[a] ?? 0, im[a] ?? 0];
        re[b] = ar - tr;
        im[b] = ai - ti;
        re[a] = ar + tr;
        im[a] = ai + ti;
      }
    }
  }
  const power = new Float64Array(size / 2 + 1);
  for (let k = 0; k <= size / 2; k++) power[k] = (re[k] ?? 0) ** 2 + (im[k] ?? 0) ** 2;
  return { power, size, windowPower };
}

/** The strongest frequency between fromHz and toHz: the spectrum's peak, interpolated on a parabola through its log power. */
export function peakFrequency(samples: Float32Array, rate: number, fromHz = 20, toHz = rate / 2): number {
  const { power, size } = spectrum(samples);
  const binHz = rate / size;
  let best = Math.max(1, Math.ceil(fromHz / binHz));
  const last = Math.min(power.length - 2, Math.floor(toHz / binHz));
  for (let k = best; k <= last; k++) if ((power[k] ?? 0) > (power[best] ?? 0)) best = k;
  const [a, b, c] = [Math.log((power[best - 1] ?? 0) + 1e-30), Math.log((power[best] ?? 0) + 1e-30), Math.log((power[best + 1] ?? 0) + 1e-30)];
  const offset = a - 2 * b + c === 0 ? 0 : (0.5 * (a - c)) / (a - 2 * b + c);
  return (best + offset) * binHz;
}

/**
 * The peak amplitude of a sine at `hz` in `samples`, by Parseval: the power within `bandHz` of it
 * and at least the window's main lobe (±4 bins). A band takes in a tone the player stretched for
 * a while (2 % fast: two peaks close together) as one.
 */
export function levelAt(samples: Float32Array, rate: number, hz: number, bandHz = 0): number {
  const { power, size, windowPower } = spectrum(samples);
  const centre = Math.round((hz * size) / rate);
  const reach = Math.max(4, Math.ceil((bandHz * size) / rate));
  let sum = 0;
  for (let k = Math.max(1, centre - reach); k <= Math.min(power.length - 1, centre + reach); k++) sum += power[k] ?? 0;
  return Math.sqrt((4 * sum) / (size * windowPower));
}
