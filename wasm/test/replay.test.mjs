// Recorded sessions (the shared recordings, @lanterna/lab's recordingsDir()) replayed into the client, no
// server: the decoded desktop must be non-trivial and the same on every run.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readRecording, recordingPath } from '@lanterna/lab';

import { loadLanternaRdp } from '../js/nodeLoader.js';
import { replayRecording } from '../tools/recordingReplay.js';

let rdp;
before(async () => { rdp = await loadLanternaRdp({ logLevel: 'OFF' }); });
after(() => rdp.close());

function describeFrame(frame) {
  const colours = new Set();
  const view = new DataView(frame.pixels.buffer, frame.pixels.byteOffset, frame.pixels.byteLength);
  for (let y = 0; y < frame.height; y += 7) {
    for (let x = 0; x < frame.width; x += 7) colours.add(view.getUint32(y * frame.stride + x * 4, true) & 0xffffff);
  }
  return { hash: createHash('sha256').update(frame.pixels).digest('hex'), colours: colours.size };
}

/** The records up to the one that brings the server's bytes past limit (whole recording when 0). */
function prefix(records, limit) {
  if (!limit) return records;
  let bytes = 0;
  const end = records.findIndex((r) => r.direction === 'server-to-client' && (bytes += r.data.length) > limit);
  return end < 0 ? records : records.slice(0, end + 1);
}

async function replayTwice(name, limit = 0) {
  const { records } = await readRecording(recordingPath(name));
  const part = prefix(records, limit);
  const runs = [];
  for (let i = 0; i < 2; i += 1) runs.push(await replayRecording(rdp, part, { deadlineMs: 60000 }));
  for (const run of runs) {
    // the input ends after the last recorded PDU: the client read all of it and then saw the end
    assert.equal(run.end.reason, 'connection-reset', `ended ${JSON.stringify(run.end)}`);
    assert.deepEqual(run.desktop, { width: 1920, height: 1080 });
  }
  assert.equal(runs[0].frames, runs[1].frames, 'both runs draw the same number of frames');
  return runs;
}

function assertSameNonTrivialDesktop(runs) {
  for (const run of runs) {
    assert.ok(run.frames > 0, 'frames drawn');
    assert.ok(run.lastFrame, 'a last frame');
  }
  const [a, b] = runs.map((run) => describeFrame(run.lastFrame));
  assert.ok(a.colours >= 8, `only ${a.colours} colours on the desktop`);
  assert.equal(a.hash, b.hash, 'both runs decode the same desktop');
}

test('cold-xrdp.dump (slow-path bitmaps) replays to the same non-trivial desktop twice', async () => {
  assertSameNonTrivialDesktop(await replayTwice('cold-xrdp'));
});

test('static-nogfx-rfx.dump (RemoteFX surface bits, first 3 MB) replays to the same desktop twice', async () => {
  assertSameNonTrivialDesktop(await replayTwice('static-nogfx-rfx', 3e6));
});

test('static-gfxprogressive.dump (GFX progressive, first 3 MB) replays to the same desktop twice', async () => {
  assertSameNonTrivialDesktop(await replayTwice('static-gfxprogressive', 3e6));
});

test('cold-shadow.dump in Node: its H.264 reaches the decoder, which Node lacks, and the session says so', async () => {
  // its client advertised AVC444, so the shadow server sent only H.264 surfaces; Node has no
  // WebCodecs (the page decodes them: e2e/src/kiosk/h264Replay.test.ts)
  const { records } = await readRecording(recordingPath('cold-shadow'));
  for (let i = 0; i < 2; i += 1) {
    const run = await replayRecording(rdp, records, { deadlineMs: 60000 });
    assert.equal(run.end.reason, 'video-unsupported', `ended ${JSON.stringify(run.end)}`);
    assert.equal(run.frames, 0, 'nothing drawn: no garbage instead of pictures');
  }
  assert.equal(rdp.h264.stats.pictures, 0);
});

test('every frame of a GFX replay shows the same pixels on every run, also those drawn after the input ended', async () => {
  // The GFX channel's thread draws what it queued after the RDP thread has read
  // the end of the input; each frame must still wait for its acknowledgement, or
  // that thread draws over frames being read and frees the surface under the last
  // ones. Each frame's rectangles are hashed while its onframe runs.
  const { records } = await readRecording(recordingPath('static-gfxprogressive'));
  const part = prefix(records, 3e6);
  const runs = [];
  for (let i = 0; i < 2; i += 1) {
    const frames = [];
    await replayRecording(rdp, part, {
      keepLastFrame: false,
      onframe: (frame) => {
        const hash = createHash('sha256').update(frame.rects);
        for (let r = 0; r < frame.rects.length; r += 4) {
          const [x, y, w, h] = frame.rects.subarray(r, r + 4);
          for (let row = y; row < y + h; row += 1) {
            hash.update(frame.pixels.subarray(row * frame.stride + x * 4, row * frame.stride + (x + w) * 4));
          }
        }
        frames.push(hash.digest('hex').slice(0, 16));
      },
    });
    runs.push(frames);
  }
  assert.ok(runs[0].length > 10, `only ${runs[0].length} frames`);
  const firstDifference = runs[0].findIndex((h, i) => h !== runs[1][i]);
  assert.equal(firstDifference, -1, `frame ${firstDifference} differs between runs`);
  assert.equal(runs[0].length, runs[1].length);
});
