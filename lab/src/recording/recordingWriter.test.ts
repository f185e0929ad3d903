import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRecording } from './recordingReader.js';
import { encodeRecording } from './recordingWriter.js';

test('encodeRecording writes what parseRecording reads back, with FreeRDP\'s checksum', () => {
  const pdus = [
    { tickMs: 0, direction: 'client-to-server' as const, data: Buffer.from([0x03, 0x00, 0x00, 0x08, 1, 2, 3, 4]) },
    { tickMs: 7, direction: 'server-to-client' as const, data: Buffer.from([0x00, 0x05, 9, 8, 7]) },
  ];
  const recording = parseRecording(encodeRecording(pdus));
  assert.equal(recording.checksumKind, 'freerdp-streamdump');
  assert.deepEqual(recording.records.map((r) => ({ tickMs: r.tickMs, direction: r.direction, data: Buffer.from(r.data) })), pdus);
});
