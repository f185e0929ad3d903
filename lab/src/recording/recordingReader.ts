// Reader for FreeRDP `/dump:record` files: a pure whole-buffer parser whose
// records are views into the buffer, a file reader on top of it, and a
// streaming iterator that holds one record at a time for files too big to load.
import { open, readFile } from 'node:fs/promises';
import { matchDumpChecksum, type ChecksumKind } from './freerdpDumpChecksum.js';
import {
  decodeRecordHeader,
  DEFAULT_MAX_TICK_REGRESSION_MS,
  RECORD_HEADER_BYTES,
  RecordingError,
  type RecordedPdu,
  type Recording,
} from './recordedPdu.js';

export { RecordingError, type PduDirection, type RecordedPdu, type Recording } from './recordedPdu.js';

export interface ReadRecordingOptions {
  /** Refuse a tick that is more than this many ms below the previous one. */
  readonly maxTickRegressionMs?: number;
}

function verifyChecksum(data: Buffer, crc: number, recordIndex: number, offset: number): ChecksumKind {
  const kind = matchDumpChecksum(data, crc);
  if (kind === undefined) {
    throw new RecordingError(
      `crc mismatch at record ${recordIndex}: file says 0x${crc.toString(16).padStart(8, '0')}`,
      recordIndex,
      offset,
    );
  }
  return kind;
}

/** Parses a whole recording held in memory; every `data` is a view into `buf`. */
export function parseRecording(buf: Buffer, options: ReadRecordingOptions = {}): Recording {
  const maxRegression = options.maxTickRegressionMs ?? DEFAULT_MAX_TICK_REGRESSION_MS;
  const records: RecordedPdu[] = [];
  let checksumKind: ChecksumKind | undefined;
  let offset = 0;
  let previousTick: number | undefined;
  while (offset < buf.length) {
    const index = records.length;
    const header = decodeRecordHeader(
      buf.subarray(offset, offset + RECORD_HEADER_BYTES),
      offset,
      index,
      buf.length - offset - RECORD_HEADER_BYTES,
      previousTick,
      maxRegression,
    );
    const start = offset + RECORD_HEADER_BYTES;
    const data = buf.subarray(start, start + header.length);
    const kind = verifyChecksum(data, header.crc, index, offset);
    checksumKind ??= kind;
    records.push({ tickMs: header.tickMs, direction: header.direction, crc: header.crc, data });
    previousTick = header.tickMs;
    offset = start + header.length;
  }
  return checksumKind === undefined ? { records } : { records, checksumKind };
}

/** Reads and parses a recording file in one go. */
export async function readRecording(path: string, options: ReadRecordingOptions = {}): Promise<Recording> {
  return parseRecording(await readFile(path), options);
}

const STREAM_READ_BYTES = 1024 * 1024;

/**
 * Yields the records of a file one by one, reading it in 1 MiB pieces; each
 * `data` is its own Buffer, so a consumer may keep some without pinning the rest.
 */
export async function* iterateRecording(
  path: string,
  options: ReadRecordingOptions = {},
): AsyncGenerator<RecordedPdu, void, undefined> {
  const maxRegression = options.maxTickRegressionMs ?? DEFAULT_MAX_TICK_REGRESSION_MS;
  const file = await open(path, 'r');
  try {
    const fileSize = (await file.stat()).size;
    let window = Buffer.alloc(0);
    let windowStart = 0; // file offset of window[0]
    let filePosition = 0;
    const ensure = async (fileOffset: number, bytes: number): Promise<void> => {
      while (windowStart + window.length < fileOffset + bytes && filePosition < fileSize) {
        const want = Math.max(STREAM_READ_BYTES, fileOffset + bytes - filePosition);
        const piece = Buffer.allocUnsafe(Math.min(want, fileSize - filePosition));
        const { bytesRead } = await file.read(piece, 0, piece.length, filePosition);
        if (bytesRead === 0) break;
        filePosition += bytesRead;
        const keepFrom = fileOffset - windowStart;
        window = Buffer.concat([window.subarray(keepFrom), piece.subarray(0, bytesRead)]);
        windowStart = fileOffset;
      }
    };
    let offset = 0;
    let index = 0;
    let previousTick: number | undefined;
    while (offset < fileSize) {
      await ensure(offset, RECORD_HEADER_BYTES);
      const header = decodeRecordHeader(
        window.subarray(offset - windowStart, offset - windowStart + RECORD_HEADER_BYTES),
        offset,
        index,
        fileSize - offset - RECORD_HEADER_BYTES,
        previousTick,
        maxRegression,
      );
      const start = offset + RECORD_HEADER_BYTES;
      await ensure(start, header.length);
      const data = Buffer.from(window.subarray(start - windowStart, start - windowStart + header.length));
      if (data.length !== header.length) {
        throw new RecordingError('file shrank while reading', index, offset);
      }
      verifyChecksum(data, header.crc, index, offset);
      yield { tickMs: header.tickMs, direction: header.direction, crc: header.crc, data };
      previousTick = header.tickMs;
      offset = start + header.length;
      index++;
    }
  } finally {
    await file.close();
  }
}
