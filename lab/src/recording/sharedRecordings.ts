// Where the recorded RDP sessions live. They are the project's shared data, not
// part of the repository: the folder `../shared/recordings` beside the
// repository's root, or wherever LANTERNA_RECORDINGS says. Tests in several
// workspaces (and the wasm tests and benches, in plain JS) read them, so the
// location and the message for a missing folder are decided once, here.
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The one variable that overrides the recordings folder. */
export const RECORDINGS_VARIABLE = 'LANTERNA_RECORDINGS';

/** The repository's root, seen from this module (lab/src/recording/ or lab/dist/recording/). */
const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** No recordings where they were looked for; the message says where and how to point elsewhere. */
export class RecordingsMissingError extends Error {
  constructor(readonly dir: string, what: string) {
    super(`recordings not found: ${what} (put the *.dump recordings in ${dir}, which is ../shared/recordings beside the repository unless ${RECORDINGS_VARIABLE} names another folder)`);
    this.name = 'RecordingsMissingError';
  }
}

/** The recordings folder: $LANTERNA_RECORDINGS, else ../shared/recordings from the repository's root. */
export function recordingsDir(): string {
  const override = process.env[RECORDINGS_VARIABLE];
  return override ? resolve(override) : resolve(repositoryRoot, '..', 'shared', 'recordings');
}

/** The path of one recording by name (`cold-xrdp` or `cold-xrdp.dump`); throws RecordingsMissingError when it is not there. */
export function recordingPath(name: string): string {
  const dir = recordingsDir();
  const path = join(dir, name.endsWith('.dump') ? name : `${name}.dump`);
  if (!existsSync(dir)) throw new RecordingsMissingError(dir, `${dir} does not exist`);
  if (!existsSync(path)) throw new RecordingsMissingError(dir, `${path} does not exist`);
  return path;
}

/** Absolute paths of every `*.dump` recording, sorted by name; throws RecordingsMissingError when there are none. */
export function listRecordings(): string[] {
  const dir = recordingsDir();
  if (!existsSync(dir)) throw new RecordingsMissingError(dir, `${dir} does not exist`);
  const names = readdirSync(dir).filter((name) => name.endsWith('.dump')).sort();
  if (names.length === 0) throw new RecordingsMissingError(dir, `${dir} holds no *.dump file`);
  return names.map((name) => join(dir, name));
}
