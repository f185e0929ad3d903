// The start-up's state files, written before anything async runs (the
// gateway's identity: admin token, session secret, TLS key and certificate;
// WS-Discovery's InstanceId and seed): never half-written, like
// atomicFile.ts, but synchronous. The content goes to a temp file beside the
// target, flushed to disk; then a rename (replace) or a hard link (create
// only if nothing is there), and the directory synced so that survives a
// power cut too.
import { closeSync, fsyncSync, linkSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';

/** A new temp file beside `path` holding `content`, flushed to disk; its name. */
function writeFlushedTemp(path: string, content: string, mode: number): string {
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(temp, 'wx', mode);
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return temp;
}

/** Flushes the directory holding `path`: a rename or link into it is on disk. */
function syncDirectoryOf(path: string): void {
  const dir = openSync(dirname(path), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}

/** Replaces `path` whole with `content` (mode for a new file). */
export function replaceFileSync(path: string, content: string, mode = 0o600): void {
  renameSync(writeFlushedTemp(path, content, mode), path);
  syncDirectoryOf(path);
}

/**
 * Creates `path` with `content` only if nothing is there yet: a hard link,
 * which (unlike rename) fails when another process made the file first.
 * Returns false then, and leaves that file as it is.
 */
export function createFileOnceSync(path: string, content: string, mode: number): boolean {
  const temp = writeFlushedTemp(path, content, mode);
  try {
    linkSync(temp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(temp);
  }
  syncDirectoryOf(path);
  return true;
}
