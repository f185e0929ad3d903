// A server that sends malformed rdpsnd PDUs (issue 27, "bad input"): the
// display's real wasm client joined to the presenter's real wasm server in
// this process (presenterPipe.mjs, as the gateway joins them), with rdpsnd
// PDUs rewritten or added on the server's static channel (rdpsndPdus.mjs).
// Each bad PDU must be dropped and counted (session.droppedAudio) while the
// sound goes on (a good wave after it still arrives), the picture goes on (a
// frame after it still arrives), another session of the same module is left
// alone, and nothing is allocated as a bad header
// announces. Before patch 0015 the play thread ended on the first PDU that
// did not parse (the sound silent for good, no count), a 2 GiB claim was
// allocated as announced and, refused, stopped the session's receive path
// (no picture, no end), and a flood queued without a bound.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { heapStats, startJoined, testPicture, withBothModules } from './presenterPipe.mjs';
import { channelChunk, channelPdus, rdpsndPdu, SNDC_FORMATS, wave2Pdu } from './rdpsndPdus.mjs';

let rdp;
let presenters;
withBothModules((loaded) => { ({ rdp, presenters } = loaded); });

const RATE = 48_000;
const WIDTH = 320;
const HEIGHT = 240;
/** 20 ms of 48 kHz stereo int16, the presenter's format (its index 0 in the client's list). */
const goodWave = (block, fill = 0) => wave2Pdu({ timestamp: block * 20, formatNo: 0, block, data: new Uint8Array(960 * 4).fill(fill) });

/**
 * A display client with sound joined to a presenter with sound. `rewriteFormats`
 * replaces the presenter's Server Audio Formats PDU on the way. Resolves once the
 * picture's channel is up (and the sound's, unless the formats were rewritten).
 */
async function joined(t, { rewriteFormats, onaudio = () => 0, opus = false } = {}) {
  const client = rdp.createSession({ width: WIDTH, height: HEIGHT, connectTimeoutMs: 15000, username: 'display', password: 'unused', audio: true, audioOpus: opus });
  const presenter = presenters.createSession({ width: WIDTH, height: HEIGHT, audio: { channel: 'static', sampleRate: RATE, channels: 2, opus } });
  const seen = { waves: [], frames: 0, end: null, rdpsnd: null };
  client.onaudio = (wave) => { seen.waves.push(wave); return onaudio(wave); };
  client.onframe = () => { seen.frames += 1; };
  client.ondisconnected = (end) => { seen.end = end; };
  const active = new Promise((resolve) => { presenter.onactive = resolve; });
  const audio = new Promise((resolve, reject) => {
    presenter.onaudioready = resolve;
    presenter.onaudiorefused = (info) => reject(new Error(`the client took no sound: ${JSON.stringify(info)}`));
  });
  startJoined(t, client, presenter);
  const relay = presenter.onoutput;
  presenter.onoutput = (bytes) => {
    const chunk = channelChunk(bytes);
    // the rdpsnd channel is the one whose first whole PDU is the server's formats
    if (chunk && seen.rdpsnd === null && chunk.data[0] === SNDC_FORMATS && chunk.totalLength === chunk.data.length) {
      seen.rdpsnd = { initiator: chunk.initiator, channelId: chunk.channelId };
      if (rewriteFormats) {
        for (const pdu of channelPdus(seen.rdpsnd, rewriteFormats(chunk.data))) relay(pdu);
        return;
      }
    }
    relay(bytes);
  };
  const ended = client.closed.then((end) => { throw new Error(`the client ended: ${JSON.stringify(end)}`); });
  const deadline = (what) => new Promise((_, reject) => { setTimeout(reject, 20000, new Error(`${what} not within 20 s`)).unref(); });
  await Promise.race([active, ended, deadline('the picture\'s channel')]);
  if (!rewriteFormats) await Promise.race([audio, ended, deadline('the sound\'s channel')]);
  return { client, presenter, seen };
}

/** Feeds the client `payload` as the server's rdpsnd channel data. */
function inject(client, seen, payload, options) {
  assert.ok(seen.rdpsnd, 'the rdpsnd channel was seen');
  for (const pdu of channelPdus(seen.rdpsnd, payload, options)) client.receive(pdu);
}

async function until(what, check, ms = 10000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => { setTimeout(resolve, 10); });
  }
}

/** The session goes on: a picture sent now arrives, and the client has not ended. */
async function pictureGoesOn(presenter, seen) {
  const before = seen.frames;
  presenter.sendFrame({ width: WIDTH, height: HEIGHT, pixels: testPicture(WIDTH, HEIGHT, 5) });
  await until('a picture after the bad input', () => seen.frames > before || seen.end !== null);
  assert.equal(seen.end, null, 'the session did not end');
}

test('a Wave2 with a format index out of range, one that is not whole frames, and an unknown PDU type are dropped with a count; the sound and the picture go on', async (t) => {
  const { client, presenter, seen } = await joined(t);
  inject(client, seen, wave2Pdu({ timestamp: 20, formatNo: 7, block: 1, data: new Uint8Array(3840) })); // the client listed one format
  inject(client, seen, wave2Pdu({ timestamp: 40, formatNo: 0, block: 2, data: new Uint8Array(3841) })); // 4-byte frames
  inject(client, seen, rdpsndPdu(0x42, new Uint8Array(8))); // no such msgType: FreeRDP logs it and goes on
  inject(client, seen, goodWave(3, 7));
  await until('the good wave after the bad ones', () => seen.waves.length >= 1);
  assert.equal(seen.waves.length, 1);
  assert.equal(seen.waves[0].block, 3);
  assert.equal(client.droppedAudio, 2, 'the two bad waves are counted (the unknown type is not sound)');
  await pictureGoesOn(presenter, seen);
});

test('Opus packets that cannot be Opus (a frame count of 0, more than 120 ms, a code 1 packet of odd length, one past 7,680 bytes) are dropped with a count; the next good packet plays, the picture goes on', async (t) => {
  const { client, presenter, seen } = await joined(t, { opus: true });
  assert.equal(presenter.audioReady?.codec, 'opus');
  // through the presenter's real server, which sends what the page gives it as it is
  assert.equal(presenter.sendAudioPacket(new Uint8Array([0xff, 0x00, 1, 2]), 960, 0), 'queued'); // code 3, no frames
  assert.equal(presenter.sendAudioPacket(new Uint8Array([0xff, 0xff, 1, 2]), 960, 20), 'queued'); // code 3, 63 × 20 ms
  assert.equal(presenter.sendAudioPacket(new Uint8Array([0xfd, 1, 2, 3]), 960, 40), 'queued'); // code 1: two equal frames in 3 bytes
  // past the display's cap (the presenter refuses these itself: written on the channel here)
  inject(client, seen, wave2Pdu({ timestamp: 60, formatNo: 0, block: 9, data: new Uint8Array(7681).fill(0xfc) }));
  const good = new Uint8Array([0xfc, 0xff, 0xfe, 0x01, 0x02]);
  assert.equal(presenter.sendAudioPacket(good, 960, 80), 'queued');
  await until('the good packet after the bad ones', () => seen.waves.length >= 1 && client.droppedAudio >= 4);
  assert.equal(seen.waves.length, 1);
  assert.deepEqual(seen.waves[0].packet, good);
  assert.equal(seen.waves[0].frames, 960);
  assert.equal(client.droppedAudio, 4, 'the four bad packets are counted');
  // what the page's decoder refuses later is counted there too
  client.audioDropped(2);
  assert.equal(client.droppedAudio, 6);
  await pictureGoesOn(presenter, seen);
});

for (const [name, rewrite] of [
  ['cut short inside its fixed part', (data) => data.subarray(0, 10)],
  ['claiming more formats than it holds', (data) => { const copy = data.slice(); new DataView(copy.buffer).setUint16(18, 9, true); return copy; }],
]) {
  test(`a Server Audio Formats PDU ${name} is dropped with a count: no sound starts, the picture goes on`, async (t) => {
    const { client, presenter, seen } = await joined(t, { rewriteFormats: rewrite });
    await until('the formats PDU counted as dropped', () => client.droppedAudio >= 1);
    assert.equal(client.droppedAudio, 1);
    assert.equal(presenter.audioReady, null, 'the client sent no formats: the presenter does not send sound');
    await pictureGoesOn(presenter, seen);
  });
}

test('channel data longer than rdpsnd allows (a 320 KB wave, a 2 GiB claim, a chunk without its first) is dropped with a count and never allocated; the sound and the picture go on', async (t) => {
  const { client, presenter, seen } = await joined(t);
  const refusedBefore = heapStats(rdp.module).refused;
  inject(client, seen, wave2Pdu({ timestamp: 20, formatNo: 0, block: 1, data: new Uint8Array(80_000 * 4) }));
  inject(client, seen, goodWave(2), { claimedLength: 0x7fff0000 });
  // a middle chunk of no PDU: neither FIRST nor LAST (its flags are the 4 bytes before its data)
  const small = wave2Pdu({ timestamp: 60, formatNo: 0, block: 3, data: new Uint8Array(400) });
  const [orphan] = channelPdus(seen.rdpsnd, small);
  new DataView(orphan.buffer).setUint32(orphan.length - small.length - 4, 0, true);
  client.receive(orphan);
  inject(client, seen, goodWave(4, 9));
  await until('the good wave after the bad ones', () => seen.waves.length >= 1);
  assert.deepEqual(seen.waves.map((wave) => wave.block), [4]);
  assert.equal(client.droppedAudio, 3);
  assert.equal(heapStats(rdp.module).refused, refusedBefore, 'no allocation was tried (and refused) for the claimed length');
  await pictureGoesOn(presenter, seen);
});

test('waves faster than the device plays them: past 256 waiting PDUs they are dropped with a count; every wave is played or counted, and the sound and the picture go on', async (t) => {
  // a page that takes 5 ms over each wave: 200 waves a second at most
  const { client, presenter, seen } = await joined(t, {
    onaudio: () => {
      const until = performance.now() + 5;
      while (performance.now() < until) { /* busy, as a loaded page */ }
      return 0;
    },
  });
  const flood = 1200; // 24 s of sound, sent at once
  for (let k = 0; k < flood; k += 1) inject(client, seen, goodWave(k & 0xff));
  await until('every wave played or dropped', () => seen.waves.length + client.droppedAudio >= flood, 30000);
  const played = seen.waves.length;
  t.diagnostic(`flood of ${flood} waves (24 s of sound at once): ${played} played, ${client.droppedAudio} dropped`);
  assert.equal(played + client.droppedAudio, flood);
  assert.ok(client.droppedAudio > 0, 'some were dropped');
  assert.ok(played >= 256, `at least the queue's worth played: ${played}`);
  inject(client, seen, goodWave(7, 3));
  await until('a wave after the flood', () => seen.waves.length > played);
  await pictureGoesOn(presenter, seen);
});

test('bad sound in one session leaves another session of the same module alone: its waves and pictures go on, nothing counted there', async (t) => {
  const [bad, good] = await Promise.all([joined(t), joined(t)]);
  inject(bad.client, bad.seen, wave2Pdu({ timestamp: 20, formatNo: 7, block: 1, data: new Uint8Array(3840) }));
  inject(bad.client, bad.seen, goodWave(2), { claimedLength: 0x7fff0000 });
  inject(good.client, good.seen, goodWave(1, 5));
  inject(good.client, good.seen, goodWave(2, 6));
  await until('the other session\'s waves', () => good.seen.waves.length >= 2);
  await until('the bad session\'s drops counted', () => bad.client.droppedAudio >= 2);
  assert.deepEqual(good.seen.waves.map((wave) => wave.block), [1, 2]);
  assert.equal(good.client.droppedAudio, 0);
  assert.equal(bad.client.droppedAudio, 2);
  await pictureGoesOn(good.presenter, good.seen);
  await pictureGoesOn(bad.presenter, bad.seen);
});
