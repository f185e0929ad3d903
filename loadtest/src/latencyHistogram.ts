// Response times recorded in an HDR histogram (microseconds, 3 significant
// digits) so generator processes can ship a step's distribution to the
// coordinator in a few hundred bytes and the coordinator can merge them exactly.
import hdr from 'hdr-histogram-js';

export interface LatencySummary {
  count: number;
  meanMs: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
}

const HIGHEST_TRACKABLE_US = 120_000_000;

function newHistogram(): hdr.Histogram {
  return hdr.build({
    bitBucketSize: 32,
    lowestDiscernibleValue: 1,
    highestTrackableValue: HIGHEST_TRACKABLE_US,
    numberOfSignificantValueDigits: 3,
    autoResize: false,
    useWebAssembly: false,
  });
}

export class LatencyRecorder {
  private histogram = newHistogram();

  recordNanoseconds(nanoseconds: number): void {
    const us = Math.max(1, Math.min(HIGHEST_TRACKABLE_US, Math.round(nanoseconds / 1000)));
    this.histogram.recordValue(us);
  }

  reset(): void { this.histogram.reset(); }

  encode(): string { return hdr.encodeIntoCompressedBase64(this.histogram); }

  summary(): LatencySummary { return summarize(this.histogram); }
}

function summarize(histogram: hdr.Histogram): LatencySummary {
  const ms = (us: number): number => Math.round(us) / 1000;
  if (histogram.totalCount === 0) return { count: 0, meanMs: 0, p50Ms: 0, p95Ms: 0, p99Ms: 0, maxMs: 0 };
  return {
    count: histogram.totalCount,
    meanMs: ms(histogram.mean),
    p50Ms: ms(histogram.getValueAtPercentile(50)),
    p95Ms: ms(histogram.getValueAtPercentile(95)),
    p99Ms: ms(histogram.getValueAtPercentile(99)),
    maxMs: ms(histogram.maxValue),
  };
}

function mergeInto(encoded: readonly string[]): hdr.Histogram {
  const merged = newHistogram();
  for (const item of encoded) {
    const part = hdr.decodeFromCompressedBase64(item, 32, false);
    merged.add(part);
    part.destroy();
  }
  return merged;
}

/** Merges histograms encoded by several generators into one summary. */
export function summarizeEncoded(encoded: readonly string[]): LatencySummary {
  const merged = mergeInto(encoded);
  const summary = summarize(merged);
  merged.destroy();
  return summary;
}

/** Merges encoded histograms into one, still encoded (kept per minute, merged again per block). */
export function mergeEncoded(encoded: readonly string[]): string {
  const merged = mergeInto(encoded);
  const text = hdr.encodeIntoCompressedBase64(merged);
  merged.destroy();
  return text;
}
