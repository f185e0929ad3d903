// The clapperboard's figures (issue 27), whatever carried it (the browser
// presenter or an RDP server): the display page's strip readings give when
// each flash was first presented, its AudioWorklet tap gives when each click
// was heard, both on this machine's wall clock; a flash and the click heard
// within 900 ms after its scheduled time are a pair.
import type { Page } from 'playwright-core';
import { stripStamp } from '@lanterna/protocol';
import { hook } from '../kiosk/soundTap.js';
import { channel } from '../kiosk/toneAnalysis.js';
import { quantile } from './benchFigures.js';

const CLICK_THRESHOLD = 0.1;
const QUIET_BEFORE_CLICK_MS = 300;

export interface StripSeen { stamp: number; latencyMs: number }

export interface TapRead {
  samples: Float32Array;
  rate: number;
  startFrame: number;
  /** A pair read together in the page: the context's time and the wall clock when that frame is heard (getOutputTimestamp). */
  clock: { contextTime: number; epochMs: number };
}

/** Logs each `lanterna:render` that carries a strip reading (the present that first showed a stamp). */
export async function installStripLog(page: Page): Promise<void> {
  await page.evaluate(() => {
    const seen: StripSeen[] = [];
    (globalThis as unknown as { clapperStrips: StripSeen[] }).clapperStrips = seen;
    window.addEventListener('lanterna:render', (event) => {
      const strip = (event as CustomEvent<{ strip?: StripSeen }>).detail.strip;
      if (strip) seen.push({ stamp: strip.stamp, latencyMs: strip.latencyMs });
    });
  });
}

export function readStripLog(page: Page): Promise<StripSeen[]> {
  return page.evaluate(() => (globalThis as unknown as { clapperStrips: StripSeen[] }).clapperStrips);
}

/** What the page's tap recorded since it was armed, with its clock. */
export async function readClockedTap(page: Page): Promise<TapRead> {
  const raw = await page.evaluate(() => (window as unknown as { lanternaSound: { readTap(): { base64: string; sampleRate: number; startFrame: number; clock: { contextTime: number; epochMs: number } | null } | null } }).lanternaSound.readTap());
  if (!raw?.clock) throw new Error('the tap has no clock');
  const bytes = Buffer.from(raw.base64, 'base64');
  return { samples: new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4), rate: raw.sampleRate, startFrame: raw.startFrame, clock: raw.clock };
}

export interface DisplayShare {
  /** The queue + output, ms, every 200 ms. */
  delays: number[];
  underruns: number;
  stretchedMs: number;
  /**
   * Where in the flashes' second (ms after the last flash's scheduled time)
   * the 200 ms sample fell in which the queue ran dry, or dropped a burst:
   * clustered after the flash, they point at the flash's picture holding
   * the sound up; spread evenly, at something else.
   */
  dryAtMs: number[];
  dropAtMs: number[];
  /** 200 ms samples in which no wave reached the queue. */
  samplesWithoutAWave: number;
  samples: number;
}

/** What the display itself adds to the sound while the flashes run (the first at `firstFlashMs`, one a second), sampled every 200 ms until `untilMs`. */
export async function sampleDisplayDelay(page: Page, firstFlashMs: number, untilMs: number): Promise<DisplayShare> {
  const share: DisplayShare = { delays: [], underruns: 0, stretchedMs: 0, dryAtMs: [], dropAtMs: [], samplesWithoutAWave: 0, samples: 0 };
  const before = await hook(page, (sound) => sound.counters());
  let last = before;
  const sinceFlash = (at: number): number => (((at - firstFlashMs) % 1000) + 1000) % 1000;
  while (Date.now() < untilMs) {
    const ring = await hook(page, (sound) => sound.counters());
    const at = Date.now();
    const rate = ring.rate ?? 0;
    if (rate > 0) share.delays.push(((((ring.write ?? 0) - (ring.read ?? 0)) | 0) * 1000) / rate + (ring.outputLatencyUs ?? 0) / 1000);
    if (at >= firstFlashMs) {
      share.samples += 1;
      if ((ring.underruns ?? 0) > (last.underruns ?? 0)) share.dryAtMs.push(sinceFlash(at));
      if ((ring.dropped ?? 0) > (last.dropped ?? 0)) share.dropAtMs.push(sinceFlash(at));
      if ((ring.waves ?? 0) === (last.waves ?? 0)) share.samplesWithoutAWave += 1;
    }
    last = ring;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const rate = last.rate ?? 0;
  share.underruns = (last.underruns ?? 0) - (before.underruns ?? 0);
  share.stretchedMs = rate > 0 ? Math.round((((last.stretched ?? 0) - (before.stretched ?? 0)) * 1000) / rate) : 0;
  return share;
}

/** One line for the report: where the dry queues and drops fell in the flashes' second. */
export function describeDisplayEvents(share: DisplayShare): string {
  const list = (values: number[]): string => (values.length === 0 ? 'none' : values.map((value) => Math.round(value)).join(', '));
  return `Dry queues in the 200 ms sample ending this long after a flash: ${list(share.dryAtMs)} ms; drops: ${list(share.dropAtMs)} ms; samples without a wave: ${share.samplesWithoutAWave} of ${share.samples}.`;
}

/** The epoch ms at which each click in the tap is heard: onsets after a quiet stretch. */
export function clicksHeard(tap: TapRead): number[] {
  const left = channel(tap.samples, 0);
  const quietFrames = Math.round((QUIET_BEFORE_CLICK_MS / 1000) * tap.rate);
  const heard: number[] = [];
  let lastLoud = -quietFrames;
  for (let i = 0; i < left.length; i++) {
    if (Math.abs(left[i] ?? 0) < CLICK_THRESHOLD) continue;
    if (i - lastLoud >= quietFrames) {
      heard.push(tap.clock.epochMs + (((tap.startFrame + i) / tap.rate) - tap.clock.contextTime) * 1000);
    }
    lastLoud = i;
  }
  return heard;
}

export interface ClapperPairs {
  offsets: number[];
  pictureLatency: number[];
  soundLatency: number[];
  /** Flashes whose present was read. */
  pictures: number;
}

/** Pairs the present that first showed flash k (its stamp) with the click heard within 900 ms of its scheduled time. */
export function pairFlashes(flashTimes: readonly number[], strips: readonly StripSeen[], clicks: readonly number[]): ClapperPairs {
  const pairs: ClapperPairs = { offsets: [], pictureLatency: [], soundLatency: [], pictures: 0 };
  for (const at of flashTimes) {
    const shown = strips.find((strip) => strip.stamp === stripStamp(at));
    const picture = shown === undefined ? undefined : at + shown.latencyMs;
    if (picture !== undefined) pairs.pictures += 1;
    const heard = clicks.find((time) => time >= at && time < at + 900);
    if (picture === undefined || heard === undefined) continue;
    pairs.offsets.push(heard - picture);
    pairs.pictureLatency.push(picture - at);
    pairs.soundLatency.push(heard - at);
  }
  return pairs;
}

/** The table the README's figures come from: a heading line, then p50/p95/min/max of each measure. */
export function clapperTable(heading: string, pairs: ClapperPairs, extraRows: readonly [string, number[]][] = []): string {
  const f = (value: number): string => (Number.isNaN(value) || !Number.isFinite(value) ? '—' : value.toFixed(0));
  const row = (name: string, values: number[]): string => `| ${name} | ${f(quantile(values, 0.5))} | ${f(quantile(values, 0.95))} | ${f(Math.min(...values))} | ${f(Math.max(...values))} |`;
  return [
    heading,
    '',
    '| ms | p50 | p95 | min | max |',
    '|---|---|---|---|---|',
    row('A/V offset: sound heard − picture presented (+ = sound late)', pairs.offsets),
    row('picture: flash scheduled → present that shows it', pairs.pictureLatency),
    row('sound: flash scheduled → click heard (output latency included)', pairs.soundLatency),
    ...extraRows.map(([name, values]) => row(name, values)),
    '',
  ].join('\n');
}
