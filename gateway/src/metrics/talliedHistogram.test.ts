import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AggregatorRegistry, Histogram, Registry } from 'prom-client';
import { TalliedHistogram } from './talliedHistogram.js';

const BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.02, 0.04, 0.08, 0.16, 0.5];
// Below, on and between bounds, and above the last one (+Inf only).
const VALUES = [0, 0.00005, 0.0001, 0.00011, 0.0003, 0.001, 0.0042, 0.0042, 0.03, 0.5, 0.51, 7];

function pair(): { tallied: TalliedHistogram; reference: Histogram; talliedRegistry: Registry; referenceRegistry: Registry } {
  const talliedRegistry = new Registry();
  const referenceRegistry = new Registry();
  const help = 'TLS read to WebSocket write completion, server to kiosk';
  const tallied = new TalliedHistogram({ name: 'lanterna_relay_latency_seconds', help, buckets: BUCKETS, registers: [talliedRegistry] });
  const reference = new Histogram({ name: 'lanterna_relay_latency_seconds', help, buckets: BUCKETS, registers: [referenceRegistry] });
  return { tallied, reference, talliedRegistry, referenceRegistry };
}

void test('the tallied histogram exports what prom-client\'s Histogram exports for the same observations', async () => {
  const { tallied, reference, talliedRegistry, referenceRegistry } = pair();
  assert.equal(await talliedRegistry.metrics(), await referenceRegistry.metrics(), 'before any observation');
  for (const value of VALUES) {
    tallied.observe(value);
    reference.observe(value);
  }
  const text = await talliedRegistry.metrics();
  assert.equal(text, await referenceRegistry.metrics());
  assert.match(text, /lanterna_relay_latency_seconds_bucket\{le="0\.005"\} 8\n/);
  assert.match(text, /lanterna_relay_latency_seconds_count 12\n/);
  // As objects (what the cluster's workers send the primary): the same samples; prom-client adds empty exemplars.
  const samples = async (registry: Registry): Promise<unknown> => (await registry.getMetricsAsJSON()).map((metric) => ({
    ...metric, values: metric.values.map(({ labels, value, metricName }: { labels: object; value: number; metricName?: string }) => ({ labels, value, metricName })),
  }));
  assert.deepEqual(await samples(talliedRegistry), await samples(referenceRegistry));
});

void test('cluster workers\' tallied histograms add up as prom-client\'s do', async () => {
  const workers = [pair(), pair()];
  workers.forEach(({ tallied, reference }, index) => {
    for (const value of VALUES.slice(index * 5)) {
      tallied.observe(value);
      reference.observe(value);
    }
  });
  const aggregate = async (registries: Registry[]): Promise<string> =>
    AggregatorRegistry.aggregate(await Promise.all(registries.map((registry) => registry.getMetricsAsJSON()))).metrics();
  const text = await aggregate(workers.map((worker) => worker.talliedRegistry));
  assert.equal(text, await aggregate(workers.map((worker) => worker.referenceRegistry)));
  assert.match(text, /lanterna_relay_latency_seconds_count 19\n/);
});

void test('reset empties the tally; a value that is not a number is refused', async () => {
  const { tallied, talliedRegistry } = pair();
  tallied.observe(0.002);
  tallied.reset();
  assert.match(await talliedRegistry.metrics(), /lanterna_relay_latency_seconds_count 0\n/);
  assert.throws(() => tallied.observe(Number.NaN), TypeError);
  assert.throws(() => new TalliedHistogram({ name: 'x', help: 'x', buckets: [1, 1], registers: [] }), RangeError);
});

void test('counts made elsewhere over the same bounds export as if observed here', async () => {
  const { tallied, reference, talliedRegistry, referenceRegistry } = pair();
  const counts = new Array<number>(BUCKETS.length + 1).fill(0);
  for (const value of VALUES) {
    reference.observe(value);
    let bucket = 0;
    while (bucket < BUCKETS.length && value > (BUCKETS[bucket] ?? 0)) bucket++;
    counts[bucket] = (counts[bucket] ?? 0) + 1;
  }
  tallied.addCounts(BUCKETS, counts, VALUES.reduce((sum, value) => sum + value, 0));
  assert.equal(await talliedRegistry.metrics(), await referenceRegistry.metrics());
  // Other bounds: each count moves up to the first bound of ours that holds it.
  tallied.reset();
  tallied.addCounts([0.0003, 1], [2, 1, 1], 8.0005);
  assert.match(await talliedRegistry.metrics(), /le="0\.00025"\} 0\n[^]*le="0\.0005"\} 2\n[^]*le="0\.5"\} 2\n[^]*le="\+Inf"\} 4\n/);
  assert.throws(() => tallied.addCounts([1], [1], 1), RangeError);
  assert.throws(() => tallied.addCounts([1], [1, -1], 1), TypeError);
});
