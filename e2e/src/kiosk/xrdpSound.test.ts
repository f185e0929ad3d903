// Sound from a real RDP server (issue 27, "from RDP servers"): xrdp 0.9.21
// (Debian 12) with PipeWire and pipewire-module-xrdp (bookworm-backports)
// inside the lab's xrdp session. The session plays a 1 kHz tone on the left at
// half scale and 440 Hz on the right at quarter scale (pw-play of a 44.1 kHz
// WAV, linked to xrdp's sink); xrdp-chansrv sends it over rdpsnd (Wave Info +
// Wave PDUs) through the real gateway to the display page, whose wasm client
// hands it to the AudioWorklet. The worklet's tap (?audiotap) is read back:
// the source's rate, frequency, amplitude, channel order and an unbroken
// stretch of tone, while the picture goes on.
//
// Engines: both (scripts/run-tests.mjs runs this file in its Node-engine pass too).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Lab, type XrdpServer } from '@lanterna/lab';
import { waitFor } from '@lanterna/testkit';
import { startKioskRig, type KioskRig } from './kioskRig.js';
import { amplitude, discontinuities, frequency, longestRun, onset } from './toneAnalysis.js';
import { hook, readTap, soundState } from './soundTap.js';

const WIDTH = 640;
const HEIGHT = 360;

function soundLog(xrdp: XrdpServer): string {
  try {
    return xrdp.soundLogPath === undefined ? '' : readFileSync(xrdp.soundLogPath, 'utf8');
  } catch {
    return '';
  }
}

test('a tone played inside an xrdp session (PipeWire → xrdp-chansrv → rdpsnd) plays on the display: 1 kHz left at half scale, 440 Hz right at quarter', { timeout: 240_000 }, async (t) => {
  const lab = await Lab.create({ name: 'xrdp-sound' });
  const opened: { rig?: KioskRig } = {};
  // the page and gateway first, then the lab's servers
  t.after(async () => {
    try {
      await opened.rig?.close();
    } finally {
      await lab.close();
    }
  });
  const xrdp = await lab.xrdp({
    scene: 'reference', width: WIDTH, height: HEIGHT,
    sound: { left: { hz: 1000, amplitude: 0.5 }, right: { hz: 440, amplitude: 0.25 } },
  });
  const rig = await startKioskRig({ target: xrdp, width: WIDTH, height: HEIGHT, query: 'codecs=planar&audiotap=5' });
  opened.rig = rig;
  const { page } = rig;
  await waitFor('the display\'s sound running', async () => (await soundState(page)) === 'running', 30_000);
  const waves = (): Promise<number> => hook(page, (sound) => sound.counters().waves ?? 0);
  try {
    await waitFor('waves from xrdp at the display', async () => (await waves()) > 20, 60_000);
  } catch (error) {
    throw new Error(`${(error as Error).message}; the session's sound log:\n${soundLog(xrdp)}`);
  }
  const counters = await hook(page, (sound) => sound.counters());
  assert.equal(counters.rate, 44_100, 'xrdp sends 44.1 kHz PCM');
  // the jitter buffer fills and settles
  await new Promise((resolve) => { setTimeout(resolve, 1000); });

  // four seconds: under load the stream breaks now and then; the checks read its longest unbroken stretch
  assert.equal(await hook(page, (sound) => sound.armTap()), true);
  await new Promise((resolve) => { setTimeout(resolve, 4000); });
  const heard = await readTap(page);
  const start = onset(heard.left);
  assert.ok(start >= 0, 'the tone reached the display\'s output');
  // as in sound.test.ts: a loaded machine breaks the stream now and then and the jitter buffer plays
  // up to 2 % fast to catch up; frequency and level are read where the tone runs unbroken
  const breaks = discontinuities(heard.left.subarray(start), 1000, heard.rate, 0.02);
  const [from, to] = longestRun(heard.left.subarray(start), breaks);
  const unbroken = (to - from) / heard.rate;
  const [left, right] = [heard.left.subarray(start + from, start + to), heard.right.subarray(start + from, start + to)];
  const [fl, fr, al, ar] = [frequency(left, heard.rate), frequency(right, heard.rate), amplitude(left), amplitude(right)];
  const after = await hook(page, (sound) => sound.counters());
  console.log(`# xrdp sound: source ${counters.rate} Hz, display context ${heard.rate} Hz; left ${fl.toFixed(2)} Hz at ${al.toFixed(4)}, right ${fr.toFixed(2)} Hz at ${ar.toFixed(4)} over ${unbroken.toFixed(2)} s unbroken; ${breaks.length} break samples in ${((heard.left.length - start) / heard.rate).toFixed(2)} s; waves ${after.waves}, underruns ${after.underruns}, dropped ${after.dropped} frames, target ${after.targetMs} ms`);
  assert.ok(unbroken >= 0.3, `at least 300 ms of unbroken tone (${unbroken.toFixed(2)} s; breaks at ${breaks.slice(0, 10).join(', ')})`);
  assert.ok(fl > 995 && fl < 1025, `left is the 1 kHz tone: ${fl.toFixed(2)} Hz`);
  assert.ok(fr > 437 && fr < 451, `right is the 440 Hz tone: ${fr.toFixed(2)} Hz`);
  assert.ok(Math.abs(al - 0.5) < 0.03, `left at half scale: ${al.toFixed(4)}`);
  assert.ok(Math.abs(ar - 0.25) < 0.02, `right at quarter scale: ${ar.toFixed(4)}`);
  // the picture goes on beside the sound: the session's reference scene is on the page
  assert.equal(await page.evaluate(() => document.getElementById('idle')?.hidden), true, 'the display shows the session, not its idle screen');
});
