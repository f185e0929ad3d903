// GFX H.264 in the page: the shared recordings whose server sent AVC444 are
// replayed into the replay lab page (WebCodecs decodes them) and the final
// picture must match what native FreeRDP draws from the same recording (the
// wasm client's native twin, FFmpeg's decoder) within PSNR ≥ 40 dB. Node has no
// WebCodecs; wasm/test/replay.test.mjs checks that the same replay there ends
// with `video-unsupported` instead.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeDifference, compareImages, readRecording, recordingPath, type RecordedPdu } from '@lanterna/lab';
import { keepImage } from './keepScreenshot.js';
import { nativeReplay } from './nativeTwin.js';
import { psnr } from './psnr.js';
import { replayInPage } from './replayInPage.js';

for (const name of ['cold-shadow', 'static-gfx']) {
  test(`${name} (H.264 AVC444) replays in the page to native FreeRDP's picture, PSNR ≥ 40 dB`, async () => {
    const path = recordingPath(name);
    const native = await nativeReplay(path);
    assert.ok(native.frames > 0, `the native twin drew nothing (${native.end})`);
    const { records } = await readRecording(path);
    const page = await replayInPage(records, name, '', native.frames);
    await keepImage(page.picture, `h264-replay-${name}`);
    await keepImage(native.picture, `h264-replay-${name}-native`);
    assert.deepEqual(page.problems, []);
    assert.ok(page.frames > 0, `the page drew nothing (ended ${page.ended})`);
    assert.equal(page.frames, native.frames, `the page drew ${page.frames} frames of native FreeRDP's ${native.frames}${page.h264 ? ` (its decoder: ${page.h264.skipped} skipped, ${page.h264.failures} failures)` : ''}`);
    assert.ok(page.ended === null || page.ended === 'connection-reset', `the session ended ${page.ended}`);
    const db = psnr(native.picture, page.picture);
    const h264 = page.h264 ? `; the page's decoder: ${page.h264.pictures} pictures, ${page.h264.skipped} access units skipped, ${page.h264.failures} failures` : '';
    console.log(`# ${name}: page ${page.frames} frames, native ${native.frames}; page vs native PSNR ${db.toFixed(2)} dB (${describeDifference(compareImages(native.picture, page.picture))})${h264}`);
    assert.ok(db >= 40, `PSNR ${db.toFixed(2)} dB against native FreeRDP's picture, below 40${h264}`);
  });
}

/** Every SPS (start code, NAL type 7) in the server's PDUs gets profile_idc 42, which no decoder knows. */
function withUnknownProfile(records: readonly RecordedPdu[]): { records: RecordedPdu[]; patched: number } {
  let patched = 0;
  const out = records.map((r) => {
    if (r.direction !== 'server-to-client') return r;
    let data: Buffer | null = null;
    for (let i = 0; i + 4 < r.data.length; i++) {
      if (r.data[i] === 0 && r.data[i + 1] === 0 && r.data[i + 2] === 1 && ((r.data[i + 3] ?? 0) & 0x1f) === 7 && r.data[i + 4] === 100) {
        data ??= Buffer.from(r.data);
        data[i + 4] = 42;
        patched += 1;
      }
    }
    return data ? { ...r, data } : r;
  });
  return { records: out, patched };
}

test('cold-shadow with an H.264 profile no decoder supports: the session ends video-unsupported and draws nothing', async () => {
  const { records } = await readRecording(recordingPath('cold-shadow'));
  const { records: broken, patched } = withUnknownProfile(records);
  assert.ok(patched > 0, 'no SPS found in the recording (compressed GFX?)');
  const page = await replayInPage(broken, 'cold-shadow-unknown-profile');
  assert.equal(page.ended, 'video-unsupported');
  assert.equal(page.frames, 0, 'something was drawn from a stream that could not be decoded');
});
