// Pixel truth through the real gateway: the wasm client's final frame against
// an X screenshot of the server's display, at the server's size (1920×1080).
// Which codec a server uses is the server's choice (shadow picks from its own
// switches, whatever the client advertises), so each case sets both ends.
// Two scenes, two jobs (see lab/src/scenes/README.md):
// - the reference scene catches lossless-path errors: planar and xrdp
//   bitmaps must match it exactly. Through the lossy codecs it is FreeRDP's
//   encoder's worst case (fixed quantisation: zone plate, noise, 1-px
//   gratings and 5×7 text come back at 35 dB, ramps and bars at 49 dB, whole
//   frame 37.06 dB, the same for native FreeRDP): printed as the codec's
//   limit, held to its measured floors.
// - the slide scene measures lossy fidelity on projector content: RemoteFX
//   and GFX progressive, TLS and NLA, at least 40 dB whole frame and in every
//   region (measured 45.55 dB whole, 44.00 dB the lowest region).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SLIDE_REGIONS, compareImages, describeDifference, generateReferenceImage } from '@lanterna/lab';

import { labThroughGateway, psnr, stableFrameOverGateway } from './gatewayFrame.mjs';

const SIZE = { width: 1920, height: 1080 };

test('pixel truth through the real gateway', { timeout: 420000 }, async (t) => {
  const { lab, rdp, projecting } = await labThroughGateway(t, 'wasm-pixel-truth');

  const display = await lab.display(SIZE);
  await display.showScene('reference');
  const screen = await display.screenshot();
  assert.equal(compareImages(generateReferenceImage(), screen), undefined, 'the display shows the reference scene');

  const exact = async (target, options) => {
    const { image } = await stableFrameOverGateway(rdp, projecting, target, { ...SIZE, ...options });
    const difference = compareImages(screen, image);
    assert.equal(difference && describeDifference(difference), undefined);
  };
  const SMOOTH_ROWS = { x: 0, y: 0, width: SIZE.width, height: 240 }; // the reference scene's ramps and saturated bars
  // Lossy cases stop their server at the end: idle shadow servers still poll the display.
  const codecLimit = async (target, options) => {
    const { image } = await stableFrameOverGateway(rdp, projecting, target, { ...SIZE, ...options }).finally(() => target.stop());
    const whole = psnr(screen, image);
    const smooth = psnr(screen, image, SMOOTH_ROWS);
    t.diagnostic(`reference scene (the codec's limit), ${JSON.stringify(options)}: whole frame ${whole.toFixed(2)} dB, ramps and bars ${smooth.toFixed(2)} dB`);
    assert.ok(smooth >= 40, `ramps and bars at ${smooth.toFixed(2)} dB, below 40`);
    assert.ok(whole >= 36, `whole frame at ${whole.toFixed(2)} dB, below the 36 dB floor of FreeRDP's encoder`);
  };

  const slideDisplay = await lab.display(SIZE);
  await slideDisplay.showScene('slide');
  const slideScreen = await slideDisplay.screenshot();
  assert.deepEqual([...slideScreen.data.subarray((20 * SIZE.width + 20) * 4, (20 * SIZE.width + 20) * 4 + 4)], [0x1f, 0x3a, 0x5f, 255], 'the display shows the slide\'s title band');
  const slideFidelity = async (target, options) => {
    const { image } = await stableFrameOverGateway(rdp, projecting, target, { ...SIZE, ...options }).finally(() => target.stop());
    const whole = psnr(slideScreen, image);
    const regions = SLIDE_REGIONS.map((region) => ({ name: region.name, db: psnr(slideScreen, image, region) }));
    const { password: _password, ...shown } = options;
    t.diagnostic(`slide scene, ${JSON.stringify(shown)}: whole frame ${whole.toFixed(2)} dB; ${regions.map((r) => `${r.name} ${r.db.toFixed(2)}`).join(', ')}`);
    assert.ok(whole >= 40, `slide at ${whole.toFixed(2)} dB, below 40`);
    for (const region of regions) assert.ok(region.db >= 40, `slide's ${region.name} at ${region.db.toFixed(2)} dB, below 40`);
  };
  const ONLY_PLANAR = ['-gfx-rfx', '-gfx-progressive', '-gfx-avc420', '-gfx-avc444'];
  const ONLY_PROGRESSIVE = ['-gfx-rfx', '-gfx-avc420', '-gfx-avc444'];
  const nla = (shadow) => ({ username: shadow.username, password: shadow.password });

  await t.test('shadow TLS, GFX with planar only: exact', async () => {
    const shadow = await lab.shadowServer({ display, auth: 'tls', gfx: true, extraArgs: ONLY_PLANAR });
    await exact(shadow, { gfx: true, codecs: ['planar'] });
  });
  await t.test('shadow NLA, GFX with planar only: exact', async () => {
    const shadow = await lab.shadowServer({ display, auth: 'nla', gfx: true, extraArgs: ONLY_PLANAR });
    await exact(shadow, { ...nla(shadow), gfx: true, codecs: ['planar'] });
  });
  await t.test('shadow NLA, wrong password: a typed end, no frame', async () => {
    const shadow = await lab.shadowServer({ display, auth: 'nla', gfx: true });
    await assert.rejects(
      stableFrameOverGateway(rdp, projecting, shadow, { ...SIZE, username: shadow.username, password: 'not-the-password' }),
      (err) => err.end?.reason === 'wrong-password',
    );
  });
  await t.test('reference scene, shadow TLS, GFX progressive: the codec\'s limit (ramps and bars at least 40 dB)', async () => {
    const shadow = await lab.shadowServer({ display, auth: 'tls', gfx: true, extraArgs: ONLY_PROGRESSIVE });
    await codecLimit(shadow, { gfx: true, codecs: ['progressive'] });
  });
  await t.test('reference scene, shadow TLS, RemoteFX surface bits (no GFX): the codec\'s limit (ramps and bars at least 40 dB)', async () => {
    const shadow = await lab.shadowServer({ display, auth: 'tls', gfx: false });
    await codecLimit(shadow, { gfx: false, codecs: ['remotefx'] });
  });
  await t.test('slide scene, shadow TLS, GFX progressive: at least 40 dB, every region', async () => {
    const shadow = await lab.shadowServer({ display: slideDisplay, auth: 'tls', gfx: true, extraArgs: ONLY_PROGRESSIVE });
    await slideFidelity(shadow, { gfx: true, codecs: ['progressive'] });
  });
  await t.test('slide scene, shadow NLA, GFX progressive: at least 40 dB, every region', async () => {
    const shadow = await lab.shadowServer({ display: slideDisplay, auth: 'nla', gfx: true, extraArgs: ONLY_PROGRESSIVE });
    await slideFidelity(shadow, { ...nla(shadow), gfx: true, codecs: ['progressive'] });
  });
  await t.test('slide scene, shadow TLS, RemoteFX surface bits (no GFX): at least 40 dB, every region', async () => {
    const shadow = await lab.shadowServer({ display: slideDisplay, auth: 'tls', gfx: false });
    await slideFidelity(shadow, { gfx: false, codecs: ['remotefx'] });
  });
  await t.test('slide scene, shadow NLA, RemoteFX surface bits (no GFX): at least 40 dB, every region', async () => {
    const shadow = await lab.shadowServer({ display: slideDisplay, auth: 'nla', gfx: false });
    await slideFidelity(shadow, { ...nla(shadow), gfx: false, codecs: ['remotefx'] });
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
