// Where the lab's real recorded RDP sessions live; tests in several
// workspaces read them, so the location is decided once, here.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

export const SHARED_RECORDINGS_DIR = process.env.LANTERNA_RECORDINGS_DIR ?? '/work/shared/recordings';

/** Absolute paths of every `*.dump` recording, sorted by name. */
export async function listSharedRecordings(dir: string = SHARED_RECORDINGS_DIR): Promise<string[]> {
  const names = await readdir(dir);
  return names
    .filter((name) => name.endsWith('.dump'))
    .sort()
    .map((name) => join(dir, name));
}
