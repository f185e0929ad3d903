// Where a gateway's workers' data planes find each other (docs/native-data-plane.md,
// "Presenter sockets"): a presenter page's socket and its display's may reach
// different workers (the port is shared with SO_REUSEPORT), so each data plane
// listens on a Unix socket of its own in one directory of the state directory,
// and a display's session asks its siblings there for its page. The directory
// is the gateway user's alone (0700): a socket there hands a page's session
// to whoever connects.
import { chmodSync, lstatSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

/** A Unix socket's path is at most 107 bytes; the data plane adds "/<pid>.sock" (at most 16). */
const MAX_DIRECTORY_BYTES = 107 - 16;

/** The siblings' directory under `stateDir`, made (or checked) 0700 and ours; throws naming what is wrong. */
export function siblingDirectory(stateDir: string): string {
  const directory = join(stateDir, 'dataplane-peers');
  if (Buffer.byteLength(directory) > MAX_DIRECTORY_BYTES) {
    throw new Error(`the data planes' sibling directory ${directory} is longer than ${MAX_DIRECTORY_BYTES} bytes, too long for a Unix socket's path: choose a shorter stateDir`);
  }
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const found = lstatSync(directory);
  if (!found.isDirectory() || (process.getuid !== undefined && found.uid !== process.getuid())) {
    throw new Error(`${directory} is not a directory of this gateway's user`);
  }
  chmodSync(directory, 0o700);
  return directory;
}
