// annexB.js, what the H.264 decoder reads of an access unit before decoding it:
// IDR or not, and the SPS's profile, level and picture size (the codec string
// VideoDecoder is configured with). Pure; one SPS made here bit by bit, one from
// a real server (the shared recording cold-shadow, FreeRDP's shadow server).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readRecording, recordingPath } from '@lanterna/lab';

import { codecString, inspectAccessUnit } from '../js/annexB.js';

/** Bits to bytes, with the RBSP stop bit and emulation prevention (00 00 0x → 00 00 03 0x). */
function rbsp(bits) {
  const all = `${bits}1`.padEnd(Math.ceil((bits.length + 1) / 8) * 8, '0');
  const raw = [];
  for (let i = 0; i < all.length; i += 8) raw.push(parseInt(all.slice(i, i + 8), 2));
  const out = [];
  let zeros = 0;
  for (const b of raw) {
    if (zeros >= 2 && b <= 3) { out.push(3); zeros = 0; }
    out.push(b);
    zeros = b === 0 ? zeros + 1 : 0;
  }
  return out;
}
const ue = (v) => { const code = (v + 1).toString(2); return '0'.repeat(code.length - 1) + code; };

/** A Baseline SPS (profile 66, constraints 0xC0, level 3.0) for w×h, with frame cropping to h rows. */
function baselineSps(widthMbs, heightMbs, cropBottom) {
  const bits = ue(0) + ue(0) + ue(2) + ue(1) + '0' + ue(widthMbs - 1) + ue(heightMbs - 1) + '1' + '1'
    + (cropBottom ? `1${ue(0)}${ue(0)}${ue(0)}${ue(cropBottom)}` : '0') + '0';
  return [0, 0, 0, 1, 0x67, 66, 0xc0, 30, ...rbsp(bits)];
}

test('a made Baseline SPS and IDR slice: profile, level, size with cropping, key picture', () => {
  const au = Uint8Array.from([0, 0, 0, 1, 0x09, 0xf0, ...baselineSps(120, 68, 4), 0, 0, 0, 1, 0x68, 0xce, 0x38, 0x80, 0, 0, 1, 0x65, 0x88, 0x84]);
  const info = inspectAccessUnit(au);
  assert.deepEqual(info.nalTypes, [9, 7, 8, 5]);
  assert.equal(info.idr, true);
  assert.deepEqual(info.sps, { profile: 66, constraints: 0xc0, level: 30, width: 1920, height: 1080 });
  assert.equal(codecString(info.sps), 'avc1.42C01E');
});

test('a delta picture: not a key, no SPS', () => {
  const info = inspectAccessUnit(Uint8Array.from([0, 0, 0, 1, 0x41, 0x9a, 0x02, 0, 0, 1, 0x01, 0x9e]));
  assert.deepEqual(info.nalTypes, [1, 1]);
  assert.equal(info.idr, false);
  assert.equal(info.sps, null);
});

test('a truncated SPS still names its profile and level', () => {
  const info = inspectAccessUnit(Uint8Array.from([0, 0, 1, 0x67, 100, 0, 40, 0xac]));
  assert.deepEqual({ ...info.sps, width: 0, height: 0 }, { profile: 100, constraints: 0, level: 40, width: 0, height: 0 });
  assert.equal(codecString(info.sps), 'avc1.640028');
});

test('the shadow server\'s first H.264 access unit (cold-shadow): High 4.0, 1920×1080 after cropping, IDR', async () => {
  const { records } = await readRecording(recordingPath('cold-shadow'));
  let found = null;
  for (const r of records) {
    if (r.direction !== 'server-to-client') continue;
    const at = r.data.indexOf(Buffer.from([0, 0, 0, 1, 0x67]));
    if (at >= 0) { found = r.data.subarray(at); break; }
  }
  assert.ok(found, 'no SPS in the recording');
  const info = inspectAccessUnit(found);
  assert.equal(info.idr, true);
  assert.deepEqual(info.sps, { profile: 100, constraints: 0, level: 40, width: 1920, height: 1080 });
  assert.equal(codecString(info.sps), 'avc1.640028');
});
