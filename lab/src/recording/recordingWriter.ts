// Writes PDUs as a FreeRDP `/dump:record` file (FreeRDP's own checksum), so a
// session recorded by a test (e.g. at a proxy) replays in everything that reads
// the shared recordings: recordingReader, the page's replay, the native twin.
import { freerdpDumpChecksum } from './freerdpDumpChecksum.js';
import { encodeRecord, type PduDirection } from './recordedPdu.js';

export interface PduToRecord {
  readonly tickMs: number;
  readonly direction: PduDirection;
  readonly data: Uint8Array;
}

/** The whole file for `pdus`, in their order. */
export function encodeRecording(pdus: readonly PduToRecord[]): Buffer {
  return Buffer.concat(pdus.map((pdu) => encodeRecord({ ...pdu, crc: freerdpDumpChecksum(pdu.data) })));
}
