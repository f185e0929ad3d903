// Benchmark (not a test): the display's jitter policy (src/audio/jitterPolicy.ts)
// against the one it replaced, on the same wave arrivals, without a browser or
// a machine's load in the way (issue 27's A/V offset). A model: waves of a
// fixed length arrive on a schedule with a seeded jitter (and, where the case
// says so, a stall and the burst behind it); an output pulls 128-frame render
// quanta at 44.1 kHz in Chromium's 10 ms callbacks (four quanta back to back);
// each quantum asks the policy, plays, stretches or drops as the worklet does,
// and a queue that cannot fill a quantum has run dry. Prints, per case and
// policy, the queue's depth (what it adds to the sound's latency, before the
// output's own), dry queues, and the ms stretched and dropped.
//
//   npx tsc -b web/tsconfig.test.json && node web/dist/bench/jitterModelBench.js [--seconds 60]
//
// The old policies are the same class with the bounds they had: before the
// low-water rule, a 50 ms start level (a 30 ms margin + 20) that no window
// drains, and no start-up grace; session 19's low-water margin raised a fixed
// 25 ms by each dry queue (now: by the gap the queue stayed empty, + 5 ms);
// everything else (2 % fast above start + 30 ms, drop past start + 110,
// −10 ms each calm 10 s, 150 ms at most) was the same.
import { DEFAULT_JITTER_BOUNDS, JitterPolicy, type JitterBounds } from '../src/audio/jitterPolicy.js';

/** Session 19's low-water margin, raised a fixed 25 ms by each dry queue and lowered each calm 10 s (now: by the gap the queue stayed empty, + 5 ms, and kept a minute). */
const FIXED_RAISE_BOUNDS: JitterBounds = { ...DEFAULT_JITTER_BOUNDS, fixedRaiseMs: 25, needMemoryMs: 0 };
const OLD_BOUNDS: JitterBounds = { ...FIXED_RAISE_BOUNDS, minMarginMs: 30, windowMs: Infinity, startupGraceMs: 0 };
const POLICIES = [['before (50 ms floor)', OLD_BOUNDS], ['low-water, +25 ms a dry queue', FIXED_RAISE_BOUNDS], ['now (low-water, + the gap)', DEFAULT_JITTER_BOUNDS]] as const;

const SOURCE_RATE = 48_000;
const OUTPUT_RATE = 44_100;
const QUANTUM = 128;
/** Chromium's callback here: 10 ms (441 frames at 44.1 kHz), rendered as whole quanta back to back. */
const CALLBACK_MS = 10;

interface Case {
  readonly name: string;
  readonly waveMs: number;
  /** Each wave arrives up to this late (uniform, seeded), ms. */
  readonly jitterMs: number;
  /** Stalls: every `everyMs` from `fromMs`, nothing arrives for `ms` (then the held waves at once). */
  readonly stall?: { readonly fromMs: number; readonly everyMs: number; readonly ms: number };
  /** The session's start: the first waves wait this long once (ms after the first). */
  readonly startGapsMs?: readonly number[];
}

const CASES: readonly Case[] = [
  { name: 'steady link, 10 ms Opus packets (browser presenter now)', waveMs: 10, jitterMs: 3 },
  { name: 'steady link, 20 ms waves (browser presenter before: Opus or PCM)', waveMs: 20, jitterMs: 3 },
  { name: 'steady link, 23.2 ms PCM waves, two dry queues at the start (xrdp)', waveMs: 1024 / 44.1, jitterMs: 5, startGapsMs: [300, 600] },
  { name: 'steady link, 10 ms packets, a 15 ms hiccup every 4 s (a quiet machine)', waveMs: 10, jitterMs: 3, stall: { fromMs: 2000, everyMs: 4000, ms: 15 } },
  { name: 'steady link, 10 ms packets, a 40 ms hiccup every 5 s', waveMs: 10, jitterMs: 3, stall: { fromMs: 2000, everyMs: 5000, ms: 40 } },
  { name: 'a 100 ms stall every 3 s, 20 ms waves', waveMs: 20, jitterMs: 3, stall: { fromMs: 2000, everyMs: 3000, ms: 100 } },
];

/** A seeded PRNG (mulberry32): both policies see the same arrivals. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** When each wave reaches the queue, ms. */
function arrivals(c: Case, seconds: number): number[] {
  const next = random(27);
  const times: number[] = [];
  let startDelay = 0;
  const gaps = [...(c.startGapsMs ?? [])];
  for (let k = 0; k * c.waveMs < seconds * 1000; k++) {
    const due = k * c.waveMs;
    while (gaps.length > 0 && due >= (gaps[0] ?? Infinity)) {
      gaps.shift();
      startDelay += 80;
    }
    let at = due + startDelay + next() * c.jitterMs;
    const stall = c.stall;
    if (stall && due >= stall.fromMs) {
      const into = (due - stall.fromMs) % stall.everyMs;
      if (into < stall.ms) at = due - into + stall.ms + next();
    }
    times.push(at);
  }
  return times.sort((x, y) => x - y);
}

interface Outcome { depth: number[]; dry: number; stretchedMs: number; droppedMs: number }

function run(c: Case, bounds: JitterBounds, seconds: number): Outcome {
  const policy = new JitterPolicy(bounds);
  const times = arrivals(c, seconds);
  const waveFrames = Math.round((c.waveMs * SOURCE_RATE) / 1000);
  const outcome: Outcome = { depth: [], dry: 0, stretchedMs: 0, droppedMs: 0 };
  let fill = 0;
  let position = 0;
  let next = 0;
  let rendered = 0;
  const quantumMs = (QUANTUM * 1000) / OUTPUT_RATE;
  for (let callback = 0; callback * CALLBACK_MS < seconds * 1000; callback++) {
    const nowCallback = callback * CALLBACK_MS;
    // the waves that arrived by this callback
    while (next < times.length && (times[next] ?? Infinity) <= nowCallback) {
      fill += waveFrames;
      next++;
    }
    // the quanta this callback renders, back to back
    const due = Math.floor(((callback + 1) * CALLBACK_MS) / quantumMs);
    for (; rendered < due; rendered++) {
      const nowMs = rendered * quantumMs;
      const decision = policy.decide(fill, SOURCE_RATE, nowMs);
      if (decision.kind === 'wait') continue;
      if (decision.drop > 0) {
        fill -= decision.drop;
        outcome.droppedMs += (decision.drop * 1000) / SOURCE_RATE;
        position = 0;
      }
      const plain = (QUANTUM * SOURCE_RATE) / OUTPUT_RATE;
      position += plain * decision.speed;
      const consumed = Math.floor(position);
      if (consumed > fill) {
        // dry within the quantum: what was there plays, then silence
        fill = 0;
        position = 0;
        outcome.dry++;
        policy.ranDry(nowMs);
        continue;
      }
      fill -= consumed;
      position -= consumed;
      if (decision.speed !== 1) outcome.stretchedMs += ((consumed - plain) * 1000) / SOURCE_RATE;
      if (nowMs >= 5000) outcome.depth.push((fill * 1000) / SOURCE_RATE);
    }
  }
  return outcome;
}

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
}

function main(): void {
  const at = process.argv.indexOf('--seconds');
  const seconds = at >= 0 ? Number(process.argv[at + 1]) : 60;
  if (!Number.isFinite(seconds) || seconds < 10) throw new Error('--seconds takes a number of seconds, at least 10');
  console.log(`Jitter policy model: ${seconds} s per case, the queue's depth from the 5th second on (ms, before the output's own latency)\n`);
  console.log('| case | policy | depth mean | p50 | p95 | min | dry queues | stretched ms | dropped ms |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const c of CASES) {
    for (const [name, bounds] of POLICIES) {
      const o = run(c, bounds, seconds);
      const mean = o.depth.reduce((sum, d) => sum + d, 0) / o.depth.length;
      const f = (value: number): string => value.toFixed(1);
      console.log(`| ${c.name} | ${name} | ${f(mean)} | ${f(quantile(o.depth, 0.5))} | ${f(quantile(o.depth, 0.95))} | ${f(Math.min(...o.depth))} | ${o.dry} | ${o.stretchedMs.toFixed(0)} | ${o.droppedMs.toFixed(0)} |`);
    }
  }
}

main();
