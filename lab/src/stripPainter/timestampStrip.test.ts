// The strip painter on a real Xvfb: the stamp on screen is recent, moves on
// between two grabs, stays above a full-screen window, covers only its band,
// and goes away with the scene.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readTimestampStrip, stripStamp, TIMESTAMP_STRIP } from '@lanterna/protocol';
import { Lab } from '../lab.js';
import type { LabDisplay } from '../display/xDisplay.js';
import { generateReferenceImage } from '../image/referenceImage.js';
import type { RgbImage } from '../image/rgbImage.js';
import { encodeSetupRequest, parseSetupReply, x11SocketPath, X11Error } from './x11Connection.js';

let lab: Lab;
let display: LabDisplay;

before(async () => ({ lab, display } = await Lab.withDisplay('strip-test', { width: 1920, height: 1080 })));
after(() => lab.close());

function stampOn(shot: RgbImage): number | null {
  return readTimestampStrip({ pixels: shot.data, stride: shot.width * 4, width: shot.width, height: shot.height });
}

/** Age of the stamp on screen when the grab ended (ms, on the shared clock). */
function ageOf(stamp: number, grabbedAt: number): number {
  return (stripStamp(grabbedAt) - stamp) | 0;
}

test('terminal scene with the strip: a recent stamp that moves on between grabs, above the full-screen xterm', async () => {
  await display.showScene('terminal', { timestampStrip: true });
  const first = stampOn(await display.screenshot());
  const firstAt = Date.now();
  const second = stampOn(await display.screenshot());
  const secondAt = Date.now();
  assert.ok(first !== null && second !== null, 'the strip reads back from the screen');
  assert.ok(ageOf(first, firstAt) >= 0 && ageOf(first, firstAt) < 2000, `stamp age ${ageOf(first, firstAt)} ms`);
  assert.ok(ageOf(second, secondAt) >= 0 && ageOf(second, secondAt) < 2000, `stamp age ${ageOf(second, secondAt)} ms`);
  assert.notEqual(first, second, 'the strip is repainted with new stamps');
});

test('reference scene with the strip: only the band differs from the reference picture; without it, no strip', async () => {
  await display.showScene('reference', { timestampStrip: true });
  const shot = await display.screenshot();
  assert.notEqual(stampOn(shot), null);
  const reference = generateReferenceImage(1920, 1080);
  let outsideBand = 0;
  for (let y = 0; y < 1080; y += 1) {
    for (let x = 0; x < 1920; x += 1) {
      if (x < TIMESTAMP_STRIP.x + TIMESTAMP_STRIP.width && y < TIMESTAMP_STRIP.y + TIMESTAMP_STRIP.height) continue;
      const offset = (y * 1920 + x) * 4;
      if (shot.data[offset] !== reference.data[offset] || shot.data[offset + 1] !== reference.data[offset + 1] || shot.data[offset + 2] !== reference.data[offset + 2]) outsideBand += 1;
    }
  }
  assert.equal(outsideBand, 0, 'pixels outside the band differ from the reference');
  await display.showScene('reference');
  assert.equal(stampOn(await display.screenshot()), null, 'the strip went away with the scene that asked for it');
});

test('x11 setup: request bytes, a refusal becomes an X11Error with its reason, displays map to sockets', () => {
  assert.deepEqual([...encodeSetupRequest()], [0x6c, 0, 11, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  const refusal = Buffer.alloc(16);
  refusal.writeUInt8(0, 0);
  refusal.writeUInt8(8, 1);
  refusal.write('no auth!', 8, 'latin1');
  assert.throws(() => parseSetupReply(refusal), (error: unknown) => error instanceof X11Error && error.phase === 'setup' && /no auth!/.test(error.message));
  assert.equal(x11SocketPath(':12'), '/tmp/.X11-unix/X12');
  assert.equal(x11SocketPath(':3.0'), '/tmp/.X11-unix/X3');
  assert.throws(() => x11SocketPath('remote:0'), X11Error);
});
