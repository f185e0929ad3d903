// The display's `figures` report: presents, and of those the frames that
// brought new pixels (a pointer-only present is not a frame), over the
// interval it measured; messages and bytes as differences of the session's
// running totals.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FiguresMessage } from '@lanterna/protocol';
import { FIGURES_REPORT_MS, FiguresReporter } from './figuresReporter.js';

void test('figures: presents, frames with new pixels, messages and bytes of the interval', async () => {
  const sent: FiguresMessage[] = [];
  let clock = 0;
  const reporter = new FiguresReporter({ sendFigures: (message) => { sent.push(message); return true; } }, () => undefined, () => clock);
  const traffic = { bytesIn: 5000, pdusIn: 0, messagesIn: 7 };
  reporter.onPresent(true); // before a session: not counted
  reporter.start('s-1', traffic);
  for (const newPixels of [true, true, false, true, false]) reporter.onPresent(newPixels);
  traffic.messagesIn += 12;
  traffic.bytesIn += 34_000;
  clock = 1000;
  await new Promise((resolve) => setTimeout(resolve, FIGURES_REPORT_MS + 200));
  reporter.stop();
  assert.deepEqual(sent, [{ type: 'figures', sessionId: 's-1', intervalMs: 1000, presents: 5, frames: 3, messages: 12, bytes: 34_000 }]);
});
