// A histogram without labels that the relay adds to once per frame sent to a
// kiosk. prom-client's Histogram.observe makes a closure, a label object and a
// label hash per call (≈ 0.25 µs, a few hundred bytes of garbage per frame);
// here an observation is a bucket search and three additions. It exports what
// prom-client's Histogram exports (the same value objects, so the registry's
// text and the cluster's aggregation treat it as one).
import type { Metric, Registry } from 'prom-client';

/** One exported sample, as prom-client's Histogram.get() gives it. */
export interface HistogramValue {
  labels: Record<string, string | number>;
  value: number;
  metricName: string;
}

/** What get() returns: prom-client's metric object for a histogram. */
export interface HistogramExport {
  name: string;
  help: string;
  type: 'histogram';
  values: HistogramValue[];
  aggregator: 'sum';
}

export interface TalliedHistogramOptions {
  name: string;
  help: string;
  /** Upper bounds, ascending; +Inf is implied. */
  buckets: readonly number[];
  registers: readonly Registry[];
}

export class TalliedHistogram {
  readonly name: string;
  readonly help: string;
  readonly type = 'histogram' as const;
  readonly aggregator = 'sum' as const;
  private readonly bounds: readonly number[];
  /** Observations per bucket (not cumulative); the last slot is above every bound. */
  private counts: Float64Array;
  private sum = 0;
  private count = 0;

  constructor(options: TalliedHistogramOptions) {
    for (let i = 1; i < options.buckets.length; i++) {
      if (!((options.buckets[i] ?? 0) > (options.buckets[i - 1] ?? 0))) throw new RangeError('histogram buckets must ascend');
    }
    this.name = options.name;
    this.help = options.help;
    this.bounds = [...options.buckets];
    this.counts = new Float64Array(this.bounds.length + 1);
    // prom-client's Registry takes its own four metric kinds by type; this one exports the same shape.
    for (const registry of options.registers) registry.registerMetric(this as unknown as Metric);
  }

  observe(value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`value is not a valid number: ${value}`);
    const { bounds } = this;
    let bucket = 0;
    while (bucket < bounds.length && value > (bounds[bucket] ?? 0)) bucket++;
    this.counts[bucket] = (this.counts[bucket] ?? 0) + 1;
    this.sum += value;
    this.count += 1;
  }

  /**
   * Observations made elsewhere (the native data plane's), as per-bucket
   * counts over `bounds` (not cumulative; one more count than bounds, above
   * them all) and their sum. Each count lands in the first of our buckets
   * whose bound is at least its own: exact when the bounds are ours.
   */
  addCounts(bounds: readonly number[], counts: readonly number[], sum: number): void {
    if (counts.length !== bounds.length + 1) throw new RangeError('one count per bound and one above them all');
    if (!Number.isFinite(sum) || counts.some((count) => !Number.isInteger(count) || count < 0)) throw new TypeError('counts must be whole and positive, the sum a number');
    counts.forEach((count, index) => {
      if (count === 0) return;
      const bound = bounds[index] ?? Infinity;
      let bucket = 0;
      while (bucket < this.bounds.length && bound > (this.bounds[bucket] ?? 0)) bucket++;
      this.counts[bucket] = (this.counts[bucket] ?? 0) + count;
      this.count += count;
    });
    this.sum += sum;
  }

  get(): Promise<HistogramExport> {
    const bucketName = `${this.name}_bucket`;
    const values: HistogramValue[] = [];
    let cumulative = 0;
    this.bounds.forEach((bound, index) => {
      cumulative += this.counts[index] ?? 0;
      values.push({ labels: { le: bound }, value: cumulative, metricName: bucketName });
    });
    values.push(
      { labels: { le: '+Inf' }, value: this.count, metricName: bucketName },
      { labels: {}, value: this.sum, metricName: `${this.name}_sum` },
      { labels: {}, value: this.count, metricName: `${this.name}_count` },
    );
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator });
  }

  reset(): void {
    this.counts = new Float64Array(this.bounds.length + 1);
    this.sum = 0;
    this.count = 0;
  }
}
