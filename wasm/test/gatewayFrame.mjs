// Projects one RDP server through the real gateway (in process: the testkit's
// startProjectingGateway) and runs the wasm client on the data socket through
// the JS API until the desktop is drawn and has stopped changing; returns that
// frame as an RGBA image shaped like the lab's RgbImage, so it compares
// directly with an X screenshot.
import { createHash } from 'node:crypto';
import WebSocket from 'ws';
import { Lab } from '@lanterna/lab';
import { startProjectingGateway } from '@lanterna/testkit';

import { runOverGateway } from '../js/gatewaySession.js';
import { loadLanternaRdp } from '../js/nodeLoader.js';

/**
 * What a test through the real gateway starts with: a lab of its own, the
 * wasm client and a projecting gateway, each closed after the test.
 */
export async function labThroughGateway(t, name) {
  const lab = await Lab.create({ name });
  t.after(() => lab.close());
  const rdp = await loadLanternaRdp();
  t.after(() => rdp.close());
  const projecting = await startProjectingGateway();
  t.after(() => projecting.close());
  return { lab, rdp, projecting };
}

function toRgba(frame) {
  const { width, height, stride, layout } = frame;
  const data = Buffer.alloc(width * height * 4);
  const [r, b] = layout === 'rgbx' ? [0, 2] : [2, 0];
  for (let y = 0; y < height; y += 1) {
    const row = frame.pixels.subarray(y * stride, y * stride + width * 4);
    const out = y * width * 4;
    for (let x = 0; x < width * 4; x += 4) {
      data[out + x] = row[x + r];
      data[out + x + 1] = row[x + 1];
      data[out + x + 2] = row[x + b];
      data[out + x + 3] = 255;
    }
  }
  return { width, height, data };
}

/**
 * Runs a session over the gateway's data socket until no frame changed the
 * pixels for stableMs; resolves with { image, frames, end } or rejects with
 * the session's end when it ends first, or when deadlineMs passes.
 */
export async function stableFrameOverGateway(rdp, projecting, target, sessionOptions, { stableMs = 1500, deadlineMs = 60000 } = {}) {
  const { sessionId, token } = await projecting.project(target);
  const session = rdp.createSession(sessionOptions);
  let lastHash = '';
  let changedAt = 0;
  let latest = null;
  session.onframe = (frame) => {
    const hash = createHash('sha1').update(frame.pixels.subarray(0, frame.stride * frame.height)).digest('hex');
    if (hash !== lastHash) {
      lastHash = hash;
      changedAt = Date.now();
      latest = toRgba(frame);
    }
  };
  const url = `${projecting.gateway.url.replace(/\/$/, '')}/v1/sessions/${encodeURIComponent(sessionId)}/data`;
  const socket = new WebSocket(url, 'lanterna.v1', { perMessageDeflate: false });
  const ended = runOverGateway(session, socket, { token });
  const started = Date.now();
  try {
    const outcome = await new Promise((resolve) => {
      const timer = setInterval(() => {
        if (Date.now() - started > deadlineMs) { clearInterval(timer); resolve('deadline'); return; }
        if (latest && Date.now() - changedAt >= stableMs) { clearInterval(timer); resolve('stable'); }
      }, 50);
      void ended.then(() => { clearInterval(timer); resolve('ended'); });
    });
    if (outcome === 'ended') {
      const end = await ended;
      throw Object.assign(new Error(`session ended before a stable frame: ${end.reason} (code ${end.code})`), { end });
    }
    if (outcome === 'deadline') throw new Error(`no stable frame within ${deadlineMs} ms (frames: ${session.frames})`);
    return { image: latest, frames: session.frames };
  } finally {
    session.stop();
    await Promise.race([ended, new Promise((resolve) => { setTimeout(resolve, 5000); })]);
    socket.terminate();
  }
}

/**
 * Peak signal-to-noise ratio over R, G and B, in dB (Infinity when identical),
 * over the whole image or over one region { x, y, width, height } of both.
 */
export function psnr(expected, actual, region = { x: 0, y: 0, width: expected.width, height: expected.height }) {
  if (expected.width !== actual.width || expected.height !== actual.height) throw new Error('image sizes differ');
  if (region.x < 0 || region.y < 0 || region.x + region.width > expected.width || region.y + region.height > expected.height) {
    throw new Error('region outside the image');
  }
  let sum = 0;
  let n = 0;
  for (let y = region.y; y < region.y + region.height; y += 1) {
    const rowEnd = (y * expected.width + region.x + region.width) * 4;
    for (let i = (y * expected.width + region.x) * 4; i < rowEnd; i += 4) {
      for (let c = 0; c < 3; c += 1) {
        const d = expected.data[i + c] - actual.data[i + c];
        sum += d * d;
        n += 1;
      }
    }
  }
  return sum === 0 ? Infinity : 10 * Math.log10((255 * 255) / (sum / n));
}
