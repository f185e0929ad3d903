// Sharp on every panel (issue 28), the client's half: the desktop scale factor
// reaches the server, and a resize mid-session follows over Display Control
// ([MS-RDPEDISP], FreeRDP's disp channel) where the server has it.
// - Weston 14's RDP backend (resizeable) reads the client core data's scale
//   factors and logs them per monitor, then scales its output by them: the
//   read-back of what the client asked for.
// - xrdp 0.9.21 (xorgxrdp) opens the disp channel and resizes its session's X
//   screen: 1920×1080 → 1280×800 → 1920×1080, each frame exact against the
//   session's own X screen at that size.
// - FreeRDP's shadow server has no disp channel (server/shadow has no
//   Display Control code): requestSize says false and the session keeps its
//   size (the page letterboxes).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';
import { compareImages, describeDifference } from '@lanterna/lab';
import { waitFor } from '@lanterna/testkit';

import { runOverGateway } from '../js/gatewaySession.js';
import { labThroughGateway, stableFrameOverGateway } from './gatewayFrame.mjs';

function toRgba(frame) {
  const { width, height, stride } = frame;
  const data = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const i = y * stride + x * 4;
      const o = (y * width + x) * 4;
      data[o] = frame.pixels[i + 2]; data[o + 1] = frame.pixels[i + 1]; data[o + 2] = frame.pixels[i]; data[o + 3] = 255;
    }
  }
  return { width, height, data };
}

/** A session over the gateway that keeps running; `stable()` waits until its picture has not changed for stableMs. */
async function liveSession(rdp, projecting, target, options) {
  const { sessionId, token } = await projecting.project(target);
  const session = rdp.createSession(options);
  const state = { hash: '', changedAt: 0, latest: null, resizes: [] };
  session.onframe = (frame) => {
    const hash = createHash('sha1').update(frame.pixels.subarray(0, frame.stride * frame.height)).digest('hex');
    if (hash !== state.hash) { state.hash = hash; state.changedAt = Date.now(); state.latest = toRgba(frame); }
  };
  session.onresize = (desktop) => state.resizes.push(desktop);
  const url = `${projecting.gateway.url.replace(/\/$/, '')}/v1/sessions/${encodeURIComponent(sessionId)}/data`;
  const socket = new WebSocket(url, 'lanterna.v1', { perMessageDeflate: false });
  let end = null;
  const ended = runOverGateway(session, socket, { token }).then((e) => { end = e; return e; });
  return {
    session,
    state,
    get end() { return end; },
    async stable(width, height, stableMs = 1500, deadlineMs = 60_000) {
      await waitFor(`a stable ${width}×${height} picture`,
        () => end !== null || (state.latest?.width === width && state.latest.height === height && Date.now() - state.changedAt >= stableMs), deadlineMs, 50);
      assert.equal(end, null, `the session ended: ${JSON.stringify(end)}`);
      return state.latest;
    },
    async close() {
      session.stop();
      await Promise.race([ended, new Promise((resolve) => { setTimeout(resolve, 5000); })]);
      socket.terminate();
    },
  };
}

test('panel sizes: scale factor read back, Display Control followed or refused', { timeout: 300_000 }, async (t) => {
  const { lab, rdp, projecting } = await labThroughGateway(t, 'wasm-display-control');

  await t.test('Weston reads the desktop and device scale factors the client sends, and scales its output by them', async () => {
    const weston = await lab.weston({ picture: 'reference', width: 1920, height: 1080, resizeable: true });
    const { image } = await stableFrameOverGateway(rdp, projecting, weston,
      { width: 1280, height: 800, desktopScale: 200, deviceScale: 180, username: weston.username, password: weston.password, gfx: false, codecs: ['planar'] });
    assert.deepEqual([image.width, image.height], [1280, 800], 'the output took the client\'s desktop size');
    const log = readFileSync(weston.logPath, 'utf8');
    assert.match(log, /rdpMonitor\[0\]: x:0, y:0, width:1280, height:800/);
    assert.match(log, /rdpMonitor\[0\]: desktopScaleFactor:200, deviceScaleFactor:180/);
    assert.match(log, /rdpMonitor\[0\]: scale:2\b/);
    await weston.stop();
  });

  await t.test('xrdp follows 1920×1080 → 1280×800 → 1920×1080 without reconnecting, exact at each size', async () => {
    const xrdp = await lab.xrdp({ scene: 'reference', width: 1920, height: 1080 });
    const live = await liveSession(rdp, projecting, xrdp, { width: 1920, height: 1080, username: xrdp.username, password: xrdp.password, gfx: false, codecs: ['planar'] });
    try {
      const exactAt = async (width, height) => {
        const image = await live.stable(width, height);
        const display = xrdp.sessionDisplay();
        assert.ok(display, 'xrdp started a session display');
        const screen = await display.screenshot();
        assert.deepEqual([screen.width, screen.height], [width, height], 'the session\'s X screen has the size asked for');
        const difference = compareImages(screen, image);
        assert.equal(difference && describeDifference(difference), undefined, `the ${width}×${height} frame against the X screen`);
      };
      await exactAt(1920, 1080);
      await waitFor('the server opened Display Control', () => live.session.requestSize(1280, 800), 15_000, 100);
      await exactAt(1280, 800);
      assert.ok(live.session.requestSize(1920, 1080));
      await exactAt(1920, 1080);
      assert.deepEqual(live.state.resizes.slice(-2), [{ width: 1280, height: 800 }, { width: 1920, height: 1080 }]);
      assert.equal(live.end, null, 'one session throughout');
    } finally {
      await live.close();
    }
  });

  await t.test('the shadow server has no Display Control: the request is refused and the desktop keeps its size', async () => {
    const display = await lab.display({ width: 1920, height: 1080 });
    await display.showScene('reference');
    const shadow = await lab.shadowServer({ display, auth: 'tls', gfx: true, extraArgs: ['-gfx-progressive', '-gfx-rfx'] });
    const live = await liveSession(rdp, projecting, shadow, { width: 1920, height: 1080, gfx: true, codecs: ['planar'] });
    try {
      await live.stable(1920, 1080);
      // the dynamic channels are up by now (GFX drew the picture); disp never opens
      await new Promise((resolve) => { setTimeout(resolve, 1000); });
      assert.equal(live.session.requestSize(1280, 800), false);
      await new Promise((resolve) => { setTimeout(resolve, 1500); });
      // GFX's reset reports the desktop's size once; never another
      assert.deepEqual(live.state.resizes.filter((d) => d.width !== 1920 || d.height !== 1080), []);
      const image = await live.stable(1920, 1080, 500);
      const difference = compareImages(await display.screenshot(), image);
      assert.equal(difference && describeDifference(difference), undefined);
    } finally {
      await live.close();
      await shadow.stop();
    }
  });
});
