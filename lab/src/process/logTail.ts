import { openSync, readSync, closeSync, fstatSync } from 'node:fs';

/** The last `lines` lines of a log file (reads at most the last 64 KiB); '' when it cannot be read. */
export function readLogTail(path: string, lines = 20): string {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return '';
  }
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, 64 * 1024);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    const all = buffer.toString('utf8').replace(/\n+$/, '').split('\n');
    return all.slice(-lines).join('\n');
  } finally {
    closeSync(fd);
  }
}
