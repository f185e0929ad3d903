// FreeRDP 3's `/dump` files carry a per-record "crc32b" (libfreerdp/core/streamdump.c).
// Its bit loop builds the mask with `~(crc & 1)` where CRC-32 needs `-(crc & 1)`,
// so every step XORs the polynomial regardless of the data bit: the result
// depends only on the payload's length (constant 0x492f023f from 4 bytes on)
// and no payload corruption can ever be detected by it. We reproduce it
// exactly so files FreeRDP writes verify, and accept standard CRC-32 too so a
// file from a FreeRDP with the bug fixed verifies for real.
import { crc32 } from 'node:zlib';

const POLYNOMIAL = 0xedb88320;

/** One byte of FreeRDP's loop, bit for bit as in streamdump.c. */
function freerdpByteStep(start: number): number {
  let crc = start >>> 0;
  for (let j = 7; j >= 0; j--) {
    const mask = ~(crc & 1) >>> 0;
    crc = ((crc >>> 1) ^ (POLYNOMIAL & mask)) >>> 0;
  }
  return crc;
}

// Every step is (x >>> 1) ^ P, affine in x, so the usual byte table applies:
// step8(x) = (x >>> 8) ^ step8(x & 0xff).
const BYTE_TABLE = Uint32Array.from({ length: 256 }, (_, i) => freerdpByteStep(i));

/** FreeRDP 3's streamdump checksum of `data`, as written into `/dump:record` files. */
export function freerdpDumpChecksum(data: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of data) {
    crc = ((crc >>> 8) ^ (BYTE_TABLE[(crc ^ byte) & 0xff] ?? 0)) >>> 0;
  }
  return ~crc >>> 0;
}

/** Reference version of the same checksum: the C loop transcribed bit by bit (slow, for tests). */
export function freerdpDumpChecksumBitwise(data: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of data) {
    crc = freerdpByteStep((crc ^ byte) >>> 0);
  }
  return ~crc >>> 0;
}

export type ChecksumKind = 'freerdp-streamdump' | 'crc32';

/** Which checksum `crc` matches for `data`, or undefined when it matches neither. */
export function matchDumpChecksum(data: Uint8Array, crc: number): ChecksumKind | undefined {
  if (crc32(data) === crc) return 'crc32';
  if (freerdpDumpChecksum(data) === crc) return 'freerdp-streamdump';
  return undefined;
}
