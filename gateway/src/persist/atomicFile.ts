// A file replaced whole or not at all: readers (and a gateway that crashed
// half-way) see the old content or the new, never a mix. Written to a temp
// file beside it, flushed to disk, renamed over it, and the directory synced so
// the rename itself survives a power cut.
import { open, rename, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

export async function writeFileAtomically(path: string, text: string, mode = 0o600): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await writeFile(temp, text, { mode, flush: true });
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  const dir = await open(dirname(path), 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}
