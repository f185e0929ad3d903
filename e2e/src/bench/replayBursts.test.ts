import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readRecording, type RecordedPdu, recordingPath } from '@lanterna/lab';
import { serverBursts } from './replayBursts.js';

function pdu(tickMs: number, direction: RecordedPdu['direction'], bytes: number, fill: number): RecordedPdu {
  return { tickMs, direction, crc: 0, data: Buffer.alloc(bytes, fill) };
}

void test('server PDUs close together share a frame; a pause, the size cap or the client do not join them', () => {
  const records = [
    pdu(1000, 'server-to-client', 10, 1),
    pdu(1001, 'server-to-client', 10, 2),
    pdu(1001, 'client-to-server', 99, 9),
    pdu(1002, 'server-to-client', 10, 3),
    pdu(1040, 'server-to-client', 30, 4),
    pdu(1040, 'server-to-client', 30, 5),
  ];
  const bursts = serverBursts(records, { gapMs: 2, maxBytes: 50 });
  assert.deepEqual(bursts.map((b) => b.atMs), [0, 40, 40]);
  assert.deepEqual(bursts.map((b) => [...new Set(b.data)]), [[1, 2, 3], [4], [5]]);
  assert.equal(bursts[0]?.data.length, 30);
});

void test('a real recording goes out whole: every server byte, in order, no client byte', async () => {
  const { records } = await readRecording(recordingPath('cold-xrdp'));
  const bursts = serverBursts(records);
  const server = Buffer.concat(records.filter((r) => r.direction === 'server-to-client').map((r) => r.data));
  assert.ok(bursts.length > 1);
  assert.ok(bursts.every((b) => b.data.length <= 256 * 1024));
  assert.ok(bursts.every((b, i) => i === 0 || b.atMs >= (bursts[i - 1]?.atMs ?? 0)));
  assert.ok(Buffer.concat(bursts.map((b) => b.data)).equals(server));
});
