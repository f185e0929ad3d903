import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BitrateController, MIN_BITRATE } from './bitrateController.js';

const CEILING = 8_000_000;
/** A second in which the gateway read `bytes` and held the page back for `heldMs` (its `pace`). */
const second = (bytes: number, heldMs: number): { bytesSent: number; heldMs: number; ms: number } => ({ bytesSent: bytes, heldMs, ms: 1000 });

void test('a link slower than the encoder: the first held-back second drops the target to 80 % of what the link carried', () => {
  const controller = new BitrateController(CEILING);
  // the gateway reads 150 kB/s (1.2 Mbit/s) and held the page back most of the second
  const decision = controller.tick(second(150_000, 800));
  assert.equal(decision.changed, true);
  assert.equal(decision.bitrate, 960_000);
  assert.equal(controller.bitrate, 960_000);
});

void test('held back again at the new target: it keeps lowering, by at least 15 %, never under the floor', () => {
  const controller = new BitrateController(CEILING);
  const seen: number[] = [];
  for (let i = 0; i < 30; i++) seen.push(controller.tick(second(10_000, 900)).bitrate);
  for (let i = 1; i < seen.length; i++) assert.ok((seen[i] ?? 0) <= (seen[i - 1] ?? 0), `never rises while held back: ${seen.join(', ')}`);
  assert.equal(seen.at(-1), MIN_BITRATE);
});

void test('seconds in which the gateway held nothing back (a display only slow to decode) keep the bitrate', () => {
  const controller = new BitrateController(CEILING);
  for (let i = 0; i < 10; i++) {
    const decision = controller.tick(second(200_000, 0));
    assert.equal(decision.bitrate, CEILING);
    assert.equal(decision.changed, false);
  }
});

void test('once the gateway holds nothing back, the target climbs back by 15 % every two seconds, up to the size\'s ceiling and no further', () => {
  const controller = new BitrateController(CEILING);
  controller.tick(second(150_000, 800));
  assert.equal(controller.bitrate, 960_000);
  const after: number[] = [];
  for (let i = 0; i < 60; i++) after.push(controller.tick(second(120_000, 0)).bitrate);
  assert.equal(after[0], 960_000, 'one free second is not enough');
  assert.equal(after[1], 1_104_000);
  assert.equal(after.at(-1), CEILING);
  assert.ok(after.every((bitrate) => bitrate <= CEILING));
});

void test('between held and free (held back a little): neither lowers nor raises, and resets the climb', () => {
  const controller = new BitrateController(CEILING);
  controller.tick(second(150_000, 800));
  controller.tick(second(150_000, 0));
  assert.equal(controller.tick(second(150_000, 150)).bitrate, 960_000);
  assert.equal(controller.tick(second(150_000, 0)).bitrate, 960_000, 'the climb starts again from zero free seconds');
  assert.equal(controller.tick(second(150_000, 0)).bitrate, 1_104_000);
});

void test('small moves do not reconfigure the encoder; reaching a bound does', () => {
  const controller = new BitrateController(1_000_000);
  // carried 110 kB/s → 704 kbit/s target: a change of 30 %, reconfigured
  assert.equal(controller.tick(second(110_000, 500)).changed, true);
  // the link carried more this time, but a held-back second still lowers by 15 %: 598 kbit/s, reconfigured (15 % ≥ 8 %)
  assert.equal(controller.tick(second(200_000, 500)).bitrate, 598_400);
  // the tick lengths count: 150 kB over two seconds is 600 kbit/s carried
  const slow = controller.tick({ bytesSent: 150_000, heldMs: 1000, ms: 2000 });
  assert.equal(slow.bitrate, 480_000);
});
