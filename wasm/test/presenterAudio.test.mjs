// Sound from the presenter's RDP server (FreeRDP's rdpsnd server in wasm,
// js/lanternaPresenter.js sendAudio) to the display's real wasm client (its
// rdpsnd channel with our device, js/lanternaRdp.js onaudio), both in this
// process, joined like the gateway joins them (presenterPipe.mjs): a 440 Hz
// sine and a chirp arrive sample for sample, in order, with the presenter's
// timestamps, and the client's Wave Confirm PDUs come back to the presenter.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';

import { pipeLikeGateway, startJoined, withBothModules } from './presenterPipe.mjs';

let rdp;
let presenters;
withBothModules((loaded) => { ({ rdp, presenters } = loaded); });

/**
 * One second of stereo int16: a 440 Hz sine on the left, a chirp from 100 Hz
 * to 10 kHz on the right (both at half scale), interleaved.
 */
function sineAndChirp(sampleRate, sineHz = 440) {
  const samples = new Int16Array(sampleRate * 2);
  for (let i = 0; i < sampleRate; i += 1) {
    const t = i / sampleRate;
    samples[i * 2] = Math.round(16383 * Math.sin(2 * Math.PI * sineHz * t));
    samples[i * 2 + 1] = Math.round(16383 * Math.sin(2 * Math.PI * (100 * t + (9900 * t * t) / 2)));
  }
  return samples;
}

/** Samples of a and b (same length) that differ. */
function differing(a, b) {
  assert.equal(a.length, b.length, `${a.length} samples received, ${b.length} compared`);
  let n = 0;
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) n += 1;
  return n;
}

function percentile(values, p) {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** A display client with sound joined to a presenter with sound; resolves when the presenter may send it. */
async function joinedWithSound(t, { channel, sampleRate, clientOptions = {}, opus = false, onaudio = () => undefined }) {
  const client = rdp.createSession({ width: 320, height: 240, connectTimeoutMs: 15000, username: 'display', password: 'unused', audio: true, ...clientOptions });
  const presenter = presenters.createSession({ width: 320, height: 240, audio: { channel, sampleRate, channels: 2, opus } });
  const seen = { waves: [], sent: [], confirms: [], dropped: [], refused: null, clientEnd: null };
  client.onaudio = (wave) => {
    seen.waves.push({ ...wave, at: performance.now() });
    return onaudio(wave);
  };
  client.ondisconnected = (end) => { seen.clientEnd = end; };
  presenter.onaudiosent = (sent) => { seen.sent.push(sent); };
  presenter.onaudioconfirm = (confirm) => { seen.confirms.push(confirm); };
  presenter.onaudiodropped = (drop) => { seen.dropped.push(drop); };
  const ready = new Promise((resolve, reject) => {
    presenter.onaudioready = resolve;
    presenter.onaudiorefused = (info) => { seen.refused = info; reject(new Error(`the client took no sound: ${JSON.stringify(info)}`)); };
  });
  const pipe = startJoined(t, client, presenter);
  const audio = await Promise.race([
    ready,
    client.closed.then((end) => { throw new Error(`the client ended before sound was ready: ${JSON.stringify(end)}; pipe ${JSON.stringify(pipe.stats)}`); }),
    presenter.ended.then((end) => { throw new Error(`the presenter ended before sound was ready: ${JSON.stringify(end)}`); }),
    new Promise((_, reject) => { setTimeout(reject, 20000, new Error('sound was not ready within 20 s')).unref(); }),
  ]);
  return { client, presenter, seen, pipe, audio };
}

/** Waits until `count` waves have arrived (or the deadline). */
async function waitForWaves(seen, count, deadlineMs = 15000) {
  const until = Date.now() + deadlineMs;
  while (seen.waves.length < count && Date.now() < until) await new Promise((resolve) => { setTimeout(resolve, 10); });
}

/** Concatenated samples of the waves, in arrival order. */
function joinWaves(waves) {
  const total = waves.reduce((n, w) => n + w.samples.length, 0);
  const all = new Int16Array(total);
  let at = 0;
  for (const w of waves) {
    all.set(w.samples, at);
    at += w.samples.length;
  }
  return all;
}

test('sound on the static rdpsnd channel arrives sample for sample, in order, with its timestamps, and is confirmed', async (t) => {
  const sampleRate = 48000;
  const { presenter, seen, pipe, audio } = await joinedWithSound(t, { channel: 'static', sampleRate });
  assert.deepEqual(audio, { sampleRate, channels: 2, clientVersion: 8, channel: 'static', codec: 'pcm' });

  // 50 chunks of 20 ms, sent in real time like a capture would; timestamps from 65000 ms wrap at 65536
  const signal = sineAndChirp(sampleRate);
  const chunkFrames = sampleRate / 50;
  const start = 65000;
  const sentAt = [];
  for (let k = 0; k < 50; k += 1) {
    const chunk = signal.subarray(k * chunkFrames * 2, (k + 1) * chunkFrames * 2);
    sentAt.push(performance.now());
    assert.equal(presenter.sendAudio(chunk, sampleRate, 2, start + k * 20), 'queued');
    await new Promise((resolve) => { setTimeout(resolve, 20); });
  }
  await waitForWaves(seen, 50);

  // nothing dropped or duplicated, in order: one wave per chunk
  assert.equal(seen.waves.length, 50, `waves: ${seen.waves.length}`);
  assert.deepEqual(seen.waves.map((w) => w.seq), Array.from({ length: 50 }, (_, k) => k + 1));
  assert.deepEqual(seen.dropped, []);
  for (const w of seen.waves) assert.deepEqual(w.format, { encoding: 'pcm', channels: 2, sampleRate, bitsPerSample: 16 });
  // the presenter's timestamps: wTimeStamp modulo 65536, dwAudioTimeStamp whole
  assert.deepEqual(seen.waves.map((w) => w.timestamp), Array.from({ length: 50 }, (_, k) => (start + k * 20) % 65536));
  assert.deepEqual(seen.waves.map((w) => w.audioTimestamp), Array.from({ length: 50 }, (_, k) => start + k * 20));
  // block numbers count on, as the presenter sent them
  assert.deepEqual(seen.waves.map((w) => w.block), seen.sent.map((s) => s.block));

  // bit for bit; and another signal (441 Hz) is seen as different: the comparison can fail
  const received = joinWaves(seen.waves);
  assert.equal(differing(received, signal), 0);
  const other = sineAndChirp(sampleRate, 441);
  assert.ok(differing(received, other) > sampleRate / 2, 'a 441 Hz sine differs from a 440 Hz one');

  // the client's confirms reach the presenter: two per wave (arrival, then handed on)
  await new Promise((resolve) => { setTimeout(resolve, 200); });
  const blocks = new Set(seen.sent.map((s) => s.block));
  assert.equal(seen.confirms.length, 100, `confirms: ${seen.confirms.length}`);
  for (const block of blocks) {
    const confirms = seen.confirms.filter((c) => c.block === block);
    assert.equal(confirms.length, 2, `block ${block}: ${JSON.stringify(confirms)}`);
    assert.equal(confirms[0].delayMs, 0, `block ${block}'s first confirm carries the wave's own time`);
    assert.ok(confirms[1].delayMs >= 0 && confirms[1].delayMs < 1000, `block ${block} handed on after ${confirms[1].delayMs} ms`);
  }
  assert.equal(pipe.stats.failure, null);

  // what a chunk takes through both wasm modules and the in-process pipe
  const latencies = seen.waves.map((w, k) => w.at - sentAt[k]);
  t.diagnostic(`presenter sendAudio → client onaudio, 20 ms chunks at 48 kHz stereo: p50 ${percentile(latencies, 50).toFixed(2)} ms, p95 ${percentile(latencies, 95).toFixed(2)} ms, max ${Math.max(...latencies).toFixed(2)} ms; handed-on confirm delay p50 ${percentile(seen.confirms.filter((_, i) => i % 2 === 1).map((c) => c.delayMs), 50)} ms`);
});

test('sound on the dynamic channel (AUDIO_PLAYBACK_DVC) arrives whole, a long chunk cut into 64 KiB waves with their own times', async (t) => {
  const sampleRate = 44100;
  // the page's player says each wave is heard 40 ms after it took it: the confirms carry that
  const { presenter, seen, audio } = await joinedWithSound(t, { channel: 'dynamic', sampleRate, onaudio: () => 40 });
  assert.deepEqual(audio, { sampleRate, channels: 2, clientVersion: 8, channel: 'dynamic', codec: 'pcm' });
  const signal = sineAndChirp(sampleRate);
  // in a burst: 10 chunks of 10 ms, then the rest (0.9 s, 158760 bytes) in one call
  const small = 441;
  for (let k = 0; k < 10; k += 1) {
    assert.equal(presenter.sendAudio(signal.subarray(k * small * 2, (k + 1) * small * 2), sampleRate, 2, 1000 + k * 10), 'queued');
  }
  assert.equal(presenter.sendAudio(signal.subarray(10 * small * 2), sampleRate, 2, 1100), 'queued');
  // 65523-byte waves hold 16380 frames: the long call makes 3 (16380, 16380, 6930)
  await waitForWaves(seen, 13);
  assert.equal(seen.waves.length, 13);
  assert.deepEqual(seen.waves.slice(10).map((w) => w.samples.length / 2), [16380, 16380, 6930]);
  assert.deepEqual(seen.waves.map((w) => w.audioTimestamp),
    [...Array.from({ length: 10 }, (_, k) => 1000 + k * 10), 1100, 1100 + Math.floor((16380 * 1000) / sampleRate), 1100 + Math.floor((32760 * 1000) / sampleRate)]);
  assert.equal(differing(joinWaves(seen.waves), signal), 0);
  assert.deepEqual(seen.sent.at(-1), { block: 10, blocks: 3, timestamp: 1100, frames: sampleRate - 10 * small });
  await new Promise((resolve) => { setTimeout(resolve, 200); });
  const handedOn = seen.confirms.filter((_, i) => i % 2 === 1);
  assert.equal(handedOn.length, 13);
  for (const c of handedOn) assert.ok(c.delayMs >= 40 && c.delayMs < 1040, `block ${c.block} confirmed ${c.delayMs} ms after its time`);
});

/**
 * `count` Opus-shaped packets of 20 ms (TOC 0xFC: CELT fullband, 20 ms, stereo, one frame) with
 * seeded bytes after it, 60–400 bytes long: nothing in Node decodes them, the client must hand
 * each on as it is.
 */
function opusPackets(count, seed = 1) {
  let state = seed;
  const next = () => { state = (state * 1103515245 + 12345) >>> 0; return state >>> 16; };
  return Array.from({ length: count }, () => {
    const packet = new Uint8Array(60 + (next() % 341));
    packet[0] = 0xfc;
    for (let i = 1; i < packet.length; i += 1) packet[i] = next() & 0xff;
    return packet;
  });
}

test('Opus: a presenter that offers it and a client that takes it; each packet arrives as it was sent, one wave each, with its frames and times, and is confirmed', async (t) => {
  const { presenter, seen, audio } = await joinedWithSound(t, { channel: 'static', sampleRate: 44100, opus: true, clientOptions: { audioOpus: true }, onaudio: () => 30 });
  // Opus's clock is 48 kHz whatever the capture's rate (44.1 kHz here)
  assert.deepEqual(audio, { sampleRate: 48000, channels: 2, clientVersion: 8, channel: 'static', codec: 'opus' });
  // the page must send packets now: PCM is refused with a reason
  assert.throws(() => presenter.sendAudio(new Int16Array(882 * 2), 44100, 2, 0), { code: 'bad-audio' });
  const packets = opusPackets(50);
  for (let k = 0; k < packets.length; k += 1) {
    assert.equal(presenter.sendAudioPacket(packets[k], 960, 65000 + k * 20), 'queued');
    await new Promise((resolve) => { setTimeout(resolve, 20); });
  }
  await waitForWaves(seen, 50);
  assert.equal(seen.waves.length, 50, `waves: ${seen.waves.length}`);
  assert.deepEqual(seen.dropped, []);
  for (let k = 0; k < 50; k += 1) {
    const wave = seen.waves[k];
    assert.deepEqual(wave.format, { encoding: 'opus', channels: 2, sampleRate: 48000 });
    assert.equal(wave.frames, 960);
    assert.equal(wave.samples, undefined);
    assert.deepEqual(wave.packet, packets[k], `packet ${k} arrives byte for byte`);
    assert.equal(wave.timestamp, (65000 + k * 20) % 65536);
    assert.equal(wave.audioTimestamp, 65000 + k * 20);
  }
  // the comparison can fail: another run of the generator differs
  assert.notDeepEqual(opusPackets(1, 2)[0], packets[0]);
  await new Promise((resolve) => { setTimeout(resolve, 200); });
  const handedOn = seen.confirms.filter((_, i) => i % 2 === 1);
  assert.equal(seen.confirms.length, 100, `confirms: ${seen.confirms.length}`);
  for (const c of handedOn) assert.ok(c.delayMs >= 30 && c.delayMs < 1030, `block ${c.block} confirmed ${c.delayMs} ms after its time (the page said 30)`);
  // a packet past the caps never leaves the presenter
  assert.throws(() => presenter.sendAudioPacket(new Uint8Array(7681).fill(0xfc), 960, 0), { code: 'bad-audio' });
  assert.throws(() => presenter.sendAudioPacket(packets[0], 5761, 0), { code: 'bad-audio' });
});

test('Opus offered to a client that does not take it (no decoder in its page): PCM, as before', async (t) => {
  const sampleRate = 48000;
  const { presenter, seen, audio } = await joinedWithSound(t, { channel: 'static', sampleRate, opus: true });
  assert.deepEqual(audio, { sampleRate, channels: 2, clientVersion: 8, channel: 'static', codec: 'pcm' });
  assert.throws(() => presenter.sendAudioPacket(opusPackets(1)[0], 960, 0), { code: 'bad-audio' });
  const signal = sineAndChirp(sampleRate).subarray(0, 960 * 2 * 5);
  for (let k = 0; k < 5; k += 1) assert.equal(presenter.sendAudio(signal.subarray(k * 1920, (k + 1) * 1920), sampleRate, 2, k * 20), 'queued');
  await waitForWaves(seen, 5);
  assert.equal(seen.waves.length, 5);
  for (const wave of seen.waves) assert.equal(wave.format.encoding, 'pcm');
  assert.equal(differing(joinWaves(seen.waves), signal), 0);
});

test('a page that takes too long over a wave holds the sound only until the deadline; nothing is lost', async (t) => {
  const sampleRate = 48000;
  let first = true;
  const { client, presenter, seen } = await joinedWithSound(t, {
    channel: 'static', sampleRate, clientOptions: { audioAckTimeoutMs: 50 },
    onaudio: () => {
      if (!first) return 0;
      first = false;
      const until = Date.now() + 300; // the page's thread busy elsewhere
      while (Date.now() < until) { /* busy */ }
      return 0;
    },
  });
  const signal = sineAndChirp(sampleRate);
  const chunk = sampleRate / 10; // 100 ms
  for (let k = 0; k < 10; k += 1) {
    assert.equal(presenter.sendAudio(signal.subarray(k * chunk * 2, (k + 1) * chunk * 2), sampleRate, 2, k * 100), 'queued');
  }
  await waitForWaves(seen, 10);
  assert.equal(seen.waves.length, 10);
  assert.equal(differing(joinWaves(seen.waves), signal), 0);
  assert.ok(client.lateAudioAcks >= 1, `late hand-overs: ${client.lateAudioAcks}`);
});

test('sound the presenter cannot send yet, or in another format, is refused before it reaches the client', async (t) => {
  const client = rdp.createSession({ width: 320, height: 240, username: 'display', password: 'unused', audio: true });
  const presenter = presenters.createSession({ width: 320, height: 240, audio: { channel: 'static', sampleRate: 48000, channels: 2 } });
  t.after(async () => {
    client.stop();
    presenter.stop();
    await Promise.all([client.closed, presenter.ended]);
  });
  pipeLikeGateway(client, presenter);
  presenter.start();
  // before the client chose the format
  assert.equal(presenter.sendAudio(new Int16Array(960 * 2), 48000, 2, 0), 'not-ready');
  assert.equal(presenter.sendAudioPacket(new Uint8Array([0xfc, 1, 2]), 960, 0), 'not-ready');
  assert.throws(() => presenter.sendAudio(new Int16Array(960 * 2), 44100, 2, 0), { code: 'bad-audio' });
  assert.throws(() => presenter.sendAudio(new Int16Array(3), 48000, 2, 0), { code: 'bad-audio' });
  assert.throws(() => presenters.createSession({ width: 320, height: 240, audio: { channel: 'udp', sampleRate: 48000, channels: 2 } }), { code: 'bad-audio' });
  assert.throws(() => presenters.createSession({ width: 320, height: 240, audio: { channel: 'static', sampleRate: 48000, channels: 6 } }), { code: 'bad-audio' });
  // a presenter without sound says so
  const silent = presenters.createSession({ width: 320, height: 240 });
  silent.start();
  assert.equal(silent.sendAudio(new Int16Array(2), 48000, 2, 0), 'off');
  silent.stop();
  await silent.ended;
});
