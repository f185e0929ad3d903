// Bad Opus on the display (issue 27, "bad input"), in Debian's Chromium:
// the presenter's real wasm RDP server (in Node, offering Opus) joined by the
// real gateway to the real display page, whose wasm client hands each Opus
// packet on and whose session worker decodes it with WebCodecs' AudioDecoder.
// The good packets are real Opus: a 1 kHz / 440 Hz tone encoded by Chromium's
// own AudioEncoder (in the display's page, as a presenter page would). Between
// them the presenter sends packets that parse as Opus (the wasm client's
// check lets them by: a code 3 packet of two frames) but whose frame lengths
// run past their end: the decoder refuses each one. Each refusal must be
// counted (the queue's decodeErrors), the decoder reopened with the good
// packets that waited behind the bad one, the tone after them played at its
// frequency and level, and the session and the picture must go on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { launchChromium, openWatchedPage, publicDir, startTestGateway, waitFor } from '@lanterna/testkit';
import { loadLanternaPresenter } from '../../../wasm/js/nodeLoader.js';
import { hook, readTap, soundState } from './soundTap.js';
import { levelAt, onset, peakFrequency } from './toneAnalysis.js';
import { connectPresenterLeg, startBrowserProjection } from './presenterLegSocket.js';

const DISPLAY = 'room-bad-opus';
/** Packets that pass the client's TOC check (code 3, VBR, two 20 ms frames) but claim a first frame of 251 bytes in a 4-byte packet. */
const GARBAGE = [0xff, 0x82, 0xfb, 0x01];
const GARBAGE_COUNT = 5;

interface EncodedPacket { base64: string; durationUs: number }

test('Opus packets the display\'s decoder refuses are dropped and counted; the decoder reopens, the tone after them plays, the session goes on', async (t) => {
  const token = randomBytes(18).toString('base64url');
  const gateway = await startTestGateway({ webRoot: publicDir, displays: [{ id: DISPLAY, name: 'Bad Opus room', token }] });
  t.after(() => gateway.close());
  const browser = await launchChromium(['--autoplay-policy=no-user-gesture-required']);
  t.after(() => browser.close());
  const kiosk = await openWatchedPage(browser, { width: 640, height: 360 });
  await kiosk.page.goto(`${gateway.httpUrl}/display/${DISPLAY}?audiotap=8#token=${token}`);
  await waitFor('the display online', async () => /Ready/.test(await kiosk.page.locator('#status-text').textContent() ?? ''), 20_000);
  await waitFor('the page\'s sound running', async () => (await soundState(kiosk.page)) === 'running', 10_000);

  // 3 s of the tone as Chromium's AudioEncoder makes it: 48 kHz stereo, 96 kbit/s, 20 ms packets
  const { packets, decodeMs } = await kiosk.page.evaluate(async (): Promise<{ packets: EncodedPacket[]; decodeMs: number }> => {
    const out: EncodedPacket[] = [];
    const encoder = new AudioEncoder({
      output: (chunk) => {
        const bytes = new Uint8Array(chunk.byteLength);
        chunk.copyTo(bytes);
        out.push({ base64: btoa(String.fromCharCode(...bytes)), durationUs: chunk.duration ?? 20_000 });
      },
      error: (error) => { throw error; },
    });
    encoder.configure({ codec: 'opus', sampleRate: 48_000, numberOfChannels: 2, bitrate: 96_000, opus: { frameDuration: 20_000 } });
    for (let k = 0; k < 150; k++) {
      const data = new Float32Array(960 * 2);
      for (let i = 0; i < 960; i++) {
        const time = (k * 960 + i) / 48_000;
        data[i] = 0.5 * Math.sin(2 * Math.PI * 1000 * time);
        data[960 + i] = 0.25 * Math.sin(2 * Math.PI * 440 * time);
      }
      encoder.encode(new AudioData({ format: 'f32-planar', sampleRate: 48_000, numberOfFrames: 960, numberOfChannels: 2, timestamp: k * 20_000, data }));
    }
    await encoder.flush();
    encoder.close();
    // what decoding costs the page: the 3 s decoded at once, as the session worker's decoder would
    let decoded = 0;
    const decoder = new AudioDecoder({ output: (data) => { decoded += data.numberOfFrames; data.close(); }, error: (error) => { throw error; } });
    decoder.configure({ codec: 'opus', sampleRate: 48_000, numberOfChannels: 2 });
    const began = performance.now();
    let timestamp = 0;
    for (const packet of out) {
      const bytes = Uint8Array.from(atob(packet.base64), (c) => c.charCodeAt(0));
      decoder.decode(new EncodedAudioChunk({ type: 'key', timestamp, duration: packet.durationUs, data: bytes }));
      timestamp += packet.durationUs;
    }
    await decoder.flush();
    const decodeMs = performance.now() - began;
    decoder.close();
    if (decoded < 140 * 960) throw new Error(`decoded ${decoded} frames`);
    return { packets: out, decodeMs };
  });
  assert.ok(packets.length >= 140, `Chromium encoded the tone: ${packets.length} packets`);
  console.log(`# bad Opus: Chromium's AudioDecoder took ${decodeMs.toFixed(1)} ms for ${packets.length} packets (${((decodeMs * 1000) / (packets.length * 20)).toFixed(1)} ms per second of sound, wall clock on this loaded machine)`);

  const presenters = await loadLanternaPresenter();
  t.after(() => presenters.close());
  const started = await startBrowserProjection(gateway, DISPLAY);
  const presenter = presenters.createSession({ width: 320, height: 240, audio: { channel: 'static', sampleRate: 48_000, channels: 2, opus: true } });
  const ready = new Promise<{ codec: string }>((resolve, reject) => {
    presenter.onaudioready = resolve;
    presenter.onaudiorefused = (info) => reject(new Error(`the display's client took no sound: ${JSON.stringify(info)}`));
  });
  const socket = connectPresenterLeg(presenter, started);
  t.after(async () => {
    presenter.stop();
    socket.close();
    await presenter.ended;
  });
  const audio = await Promise.race([ready, presenter.ended.then((end) => { throw new Error(`the presenter ended before sound was ready: ${JSON.stringify(end)}`); })]);
  assert.equal(audio.codec, 'opus', 'the display\'s Chromium decodes Opus: its client took it');
  presenter.sendFrame({ width: 320, height: 240, pixels: new Uint8Array(320 * 240 * 4).fill(0x80) });
  await kiosk.page.waitForFunction(() => document.getElementById('idle')?.hidden === true, undefined, { timeout: 15_000 });

  const before = await hook(kiosk.page, (sound) => sound.counters());
  assert.equal(await hook(kiosk.page, (sound) => sound.armTap()), true);
  // in real time: 1 s of tone, the bad packets, then the rest of the tone
  const begin = performance.now();
  let sent = 0;
  const send = async (packet: Uint8Array, frames: number): Promise<void> => {
    assert.equal(presenter.sendAudioPacket(packet, frames, Math.round(begin + sent * 20)), 'queued');
    sent++;
    await new Promise((resolve) => { setTimeout(resolve, Math.max(0, begin + sent * 20 - performance.now())); });
  };
  const good = packets.map((packet) => ({ bytes: new Uint8Array(Buffer.from(packet.base64, 'base64')), frames: Math.round((packet.durationUs * 48_000) / 1_000_000) }));
  for (const packet of good.slice(0, 50)) await send(packet.bytes, packet.frames);
  for (let k = 0; k < GARBAGE_COUNT; k++) await send(new Uint8Array(GARBAGE), 1920);
  for (const packet of good.slice(50)) await send(packet.bytes, packet.frames);
  await new Promise((resolve) => { setTimeout(resolve, 500); });

  const counters = await hook(kiosk.page, (sound) => sound.counters());
  const errors = (counters.decodeErrors ?? 0) - (before.decodeErrors ?? 0);
  const heard = await readTap(kiosk.page);
  console.log(`# bad Opus: ${errors} packets refused or lost with the decoder (${GARBAGE_COUNT} bad sent); counters ${JSON.stringify(counters)}`);
  assert.ok(errors >= GARBAGE_COUNT, `each bad packet is counted: ${errors}`);
  assert.equal(errors, GARBAGE_COUNT, 'a refusal costs its own packet only (the good ones behind it go to a fresh decoder)');

  // the tone after the bad packets: its last second, at its frequency and level (Opus: a lossy codec's slack)
  const start = onset(heard.left);
  assert.ok(start >= 0, 'the tone reached the display\'s output');
  const end = heard.left.length - Math.round(0.4 * heard.rate);
  const [left, right] = [heard.left.subarray(end - heard.rate, end), heard.right.subarray(end - heard.rate, end)];
  const [fl, fr] = [peakFrequency(left, heard.rate, 200, 5000), peakFrequency(right, heard.rate, 200, 5000)];
  const [al, ar] = [levelAt(left, heard.rate, 1000, 30), levelAt(right, heard.rate, 440, 14)];
  console.log(`# bad Opus: after them left ${fl.toFixed(1)} Hz at ${al.toFixed(4)}, right ${fr.toFixed(1)} Hz at ${ar.toFixed(4)} (display context ${heard.rate} Hz)`);
  assert.ok(fl > 995 && fl < 1025, `left is the 1 kHz tone: ${fl.toFixed(1)} Hz`);
  assert.ok(fr > 437 && fr < 451, `right is the 440 Hz tone: ${fr.toFixed(1)} Hz`);
  // a dry queue on a loaded machine may cut into the second: the level is read loosely
  assert.ok(al > 0.35 && al < 0.55, `left near half scale: ${al.toFixed(4)}`);
  assert.ok(ar > 0.17 && ar < 0.28, `right near quarter scale: ${ar.toFixed(4)}`);

  // the session goes on: still showing, and a new picture and more sound are taken
  assert.equal(presenter.state, 'active');
  assert.equal(await kiosk.page.evaluate(() => document.getElementById('idle')?.hidden), true, 'the display still shows the session');
  const bytes = good[0]?.bytes;
  assert.ok(bytes);
  assert.equal(presenter.sendAudioPacket(bytes, 960, Math.round(performance.now())), 'queued');
});
