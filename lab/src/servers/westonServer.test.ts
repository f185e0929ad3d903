// Starts Weston's RDP backend (real weston, weston-image, weston-screenshooter)
// and proves it: the picture on its output is the scene's, pixel for pixel,
// a native client gets through TLS, start failures are typed, and nothing
// outlives stop().
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { Lab } from '../lab.js';
import { generateReferenceImage } from '../image/referenceImage.js';
import { compareImages, describeDifference } from '../image/rgbImage.js';
import { probeNative } from '../client/probeNative.js';
import { assertOwnLabEndsAll, assertStartFails } from '../labTestAsserts.js';

let lab: Lab;
before(async () => {
  lab = await Lab.create({ name: 'weston-test' });
});
after(() => lab.close());

test('weston shows the reference picture 1:1 and its screenshots are exact; a native client gets through TLS', async (t) => {
  const started = Date.now();
  const weston = await lab.weston({ picture: 'reference', width: 1280, height: 800 });
  t.diagnostic(`weston with the reference picture ready in ${Date.now() - started} ms`);
  t.after(() => weston.stop());
  const reference = generateReferenceImage(1280, 800);
  const pictureDifference = compareImages(reference, weston.picture);
  assert.equal(pictureDifference, undefined, `the PNG round trip changed pixels: ${describeDifference(pictureDifference)}`);
  const screenDifference = compareImages(reference, await weston.screenshot());
  assert.equal(screenDifference, undefined, describeDifference(screenDifference));
  assert.ok(weston.certificateDer !== undefined);
  assert.match(new X509Certificate(weston.certificateDer).subject, /CN=lanterna-lab-weston/);
  await probeNative(weston);
});

test('weston shows the slide at the size asked for', async (t) => {
  const weston = await lab.weston({ picture: 'slide', width: 1920, height: 1080 });
  t.after(() => weston.stop());
  assert.deepEqual([weston.picture.width, weston.picture.height], [1920, 1080]);
  // the slide's title band (navy) at its top left, as on the X scene
  const at = (20 * 1920 + 20) * 4;
  assert.deepEqual([...weston.picture.data.subarray(at, at + 4)], [0x1f, 0x3a, 0x5f, 255]);
  const difference = compareImages(weston.picture, await weston.screenshot());
  assert.equal(difference, undefined, describeDifference(difference));
});

test('weston with a bad option fails fast with its name, command line and log', async () => {
  await assertStartFails(() => lab.weston({ width: 640, height: 480, extraArgs: ['--lanterna-no-such-option'], readyTimeoutMs: 10_000 }), 10_000, [
    /^weston \(rdp, 640x480\) failed to start \(exited/,
    /command: stdbuf -oL weston .*--lanterna-no-such-option/,
  ]);
});

test('stop() leaves no weston process behind', async () => {
  await assertOwnLabEndsAll('weston-stop-test', async (own) => {
    const weston = await own.weston({ width: 640, height: 480 });
    const pids = own.livePids();
    assert.ok(pids.includes(weston.weston.pid) && pids.includes(weston.viewer.pid), `weston and weston-image among ${pids.join(', ')}`);
    await weston.stop();
    assert.deepEqual(own.livePids(), []);
    return pids;
  });
});
