// The display page's sound hook (window.lanternaSound, web/src/audio) as the
// sound tests read it: the page's state, its level, and the test tap
// (?audiotap=SECONDS) that copies what the AudioWorklet rendered.
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { channel } from './toneAnalysis.js';

export interface SoundHook {
  state(): string;
  level(): { volume: number; muted: boolean };
  armTap(): boolean;
  readTap(): { base64: string; sampleRate: number } | null;
  counters(): Record<string, number>;
}

/** 'running', 'suspended', 'unavailable'…, or 'none' on a page without the hook. */
export function soundState(page: Page): Promise<string> {
  return page.evaluate(() => (window as unknown as { lanternaSound?: { state(): string } }).lanternaSound?.state() ?? 'none');
}

/** Runs `call` on the page's hook (the function's source is sent: it must not close over anything). */
export async function hook<T>(page: Page, call: (sound: SoundHook) => T): Promise<T> {
  return page.evaluate<T>(`(${call.toString()})(window.lanternaSound)`);
}

/** What the tap recorded since it was armed, as left and right channels at the page's rate. */
export async function readTap(page: Page): Promise<{ left: Float32Array; right: Float32Array; rate: number }> {
  const tap = await hook(page, (sound) => sound.readTap());
  assert.ok(tap, 'the page has a tap (?audiotap)');
  const bytes = Buffer.from(tap.base64, 'base64');
  const samples = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  return { left: channel(samples, 0), right: channel(samples, 1), rate: tap.sampleRate };
}
