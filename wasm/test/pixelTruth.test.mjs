// Pixel truth through the real gateway: the wasm client's final frame against
// an X screenshot of the server's display showing the lab's reference scene,
// at the server's size (1920×1080). Lossless paths must match exactly.
// Which codec a server uses is the server's choice (shadow picks from its own
// switches, whatever the client advertises), so each case sets both ends.
// Lossy codecs (RemoteFX, GFX progressive): FreeRDP's encoder quantises with
// fixed tables, so the scene's zone plate, noise and 1-px gratings come back
// at 32–36 dB while ramps and bars come back at 48–50 dB (whole frame 37.1 dB,
// and wasm/bench shows wasm and native RemoteFX decodes bit-identical); the test
// holds the smooth bands to 40 dB and the whole frame to its measured floor.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Lab, compareImages, describeDifference, generateReferenceImage } from '@lanterna/lab';

import { loadLanternaRdp } from '../js/nodeLoader.js';
import { psnr, stableFrameOverGateway, startProjectingGateway } from './gatewayFrame.mjs';

const SIZE = { width: 1920, height: 1080 };

test('pixel truth through the real gateway', { timeout: 240000 }, async (t) => {
  const lab = await Lab.create({ name: 'wasm-pixel-truth' });
  t.after(() => lab.close());
  const rdp = await loadLanternaRdp();
  t.after(() => rdp.close());
  const projecting = await startProjectingGateway();
  t.after(() => projecting.close());

  const display = await lab.display(SIZE);
  await display.showScene('reference');
  const screen = await display.screenshot();
  assert.equal(compareImages(generateReferenceImage(), screen), undefined, 'the display shows the reference scene');

  const exact = async (target, options) => {
    const { image } = await stableFrameOverGateway(rdp, projecting, target, { ...SIZE, ...options });
    const difference = compareImages(screen, image);
    assert.equal(difference && describeDifference(difference), undefined);
  };
  const SMOOTH_ROWS = 240; // the reference scene's ramps and saturated bars
  const crop = (image, rows) => ({ width: image.width, height: rows, data: image.data.subarray(0, image.width * rows * 4) });
  const close = async (target, options) => {
    const { image } = await stableFrameOverGateway(rdp, projecting, target, { ...SIZE, ...options });
    const whole = psnr(screen, image);
    const smooth = psnr(crop(screen, SMOOTH_ROWS), crop(image, SMOOTH_ROWS));
    t.diagnostic(`${JSON.stringify(options)}: whole frame ${whole.toFixed(2)} dB, ramps and bars ${smooth.toFixed(2)} dB`);
    assert.ok(smooth >= 40, `ramps and bars at ${smooth.toFixed(2)} dB, below 40`);
    assert.ok(whole >= 36, `whole frame at ${whole.toFixed(2)} dB, below the 36 dB floor of FreeRDP's encoder`);
  };
  const ONLY_PLANAR = ['-gfx-rfx', '-gfx-progressive', '-gfx-avc420', '-gfx-avc444'];
  const ONLY_PROGRESSIVE = ['-gfx-rfx', '-gfx-avc420', '-gfx-avc444'];

  await t.test('shadow TLS, GFX with planar only: exact', async () => {
    const shadow = await lab.shadowServer({ display, auth: 'tls', gfx: true, extraArgs: ONLY_PLANAR });
    await exact(shadow, { gfx: true, codecs: ['planar'] });
  });
  await t.test('shadow NLA, GFX with planar only: exact', async () => {
    const shadow = await lab.shadowServer({ display, auth: 'nla', gfx: true, extraArgs: ONLY_PLANAR });
    await exact(shadow, { username: shadow.username, password: shadow.password, gfx: true, codecs: ['planar'] });
  });
  await t.test('shadow NLA, wrong password: a typed end, no frame', async () => {
    const shadow = await lab.shadowServer({ display, auth: 'nla', gfx: true });
    await assert.rejects(
      stableFrameOverGateway(rdp, projecting, shadow, { ...SIZE, username: shadow.username, password: 'not-the-password' }),
      (err) => err.end?.reason === 'wrong-password',
    );
  });
  await t.test('shadow TLS, GFX progressive: ramps and bars at least 40 dB', async () => {
    const shadow = await lab.shadowServer({ display, auth: 'tls', gfx: true, extraArgs: ONLY_PROGRESSIVE });
    await close(shadow, { gfx: true, codecs: ['progressive'] });
  });
  await t.test('shadow TLS, RemoteFX surface bits (no GFX): ramps and bars at least 40 dB', async () => {
    const shadow = await lab.shadowServer({ display, auth: 'tls', gfx: false });
    await close(shadow, { gfx: false, codecs: ['remotefx'] });
  });
  await t.test('xrdp (xorgxrdp) bitmaps, no RemoteFX advertised: exact', async () => {
    const xrdp = await lab.xrdp({ scene: 'reference', ...SIZE });
    const { image } = await stableFrameOverGateway(rdp, projecting, xrdp,
      { ...SIZE, username: xrdp.username, password: xrdp.password, gfx: false, codecs: ['planar'] });
    const session = xrdp.sessionDisplay();
    assert.ok(session, 'xrdp started a session display');
    const sessionScreen = await session.screenshot();
    assert.equal(compareImages(generateReferenceImage(), sessionScreen), undefined, 'the xrdp session shows the reference scene');
    const difference = compareImages(sessionScreen, image);
    assert.equal(difference && describeDifference(difference), undefined);
  });
});
