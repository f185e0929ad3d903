import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import {
  freerdpDumpChecksum,
  freerdpDumpChecksumBitwise,
  matchDumpChecksum,
} from './freerdpDumpChecksum.js';

void test('table version equals the bit-by-bit transcription of the C loop', () => {
  for (let length = 0; length < 300; length++) {
    const data = randomBytes(length);
    assert.equal(freerdpDumpChecksum(data), freerdpDumpChecksumBitwise(data), `length ${length}`);
  }
});

void test('the FreeRDP checksum ignores the payload: same value for any content of 4+ bytes', () => {
  // Documents the upstream bug (mask = ~(crc & 1) instead of -(crc & 1)).
  const values = new Set<number>();
  for (let i = 0; i < 50; i++) values.add(freerdpDumpChecksumBitwise(randomBytes(4 + i * 7)));
  assert.equal(values.size, 1);
  const zeros = freerdpDumpChecksumBitwise(Buffer.alloc(64));
  const ones = freerdpDumpChecksumBitwise(Buffer.alloc(64, 0xff));
  assert.equal(zeros, ones);
});

void test('matchDumpChecksum tells the FreeRDP checksum from standard CRC-32 and refuses others', () => {
  const data = Buffer.from('0300000c02f0800428000000', 'hex');
  assert.equal(matchDumpChecksum(data, freerdpDumpChecksum(data)), 'freerdp-streamdump');
  assert.equal(matchDumpChecksum(data, crc32(data)), 'crc32');
  assert.equal(matchDumpChecksum(data, (crc32(data) ^ 1) >>> 0), undefined);
});
