// The corpus on disk: one input per file, kept in the repository beside the
// target's code. Entries are named by what they are (`seed-…`, hand-made or
// taken from real traffic) or by their hash (`found-…`, saved by a campaign).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface CorpusEntry {
  readonly name: string;
  readonly bytes: Uint8Array;
}

/** Every file of `dir`, sorted by name; none when the folder does not exist. */
export function readCorpus(dir: string): CorpusEntry[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => !name.startsWith('.') && name !== 'README.md' && statSync(join(dir, name)).isFile())
    .sort()
    .map((name) => ({ name, bytes: new Uint8Array(readFileSync(join(dir, name))) }));
}

export function contentName(prefix: string, bytes: Uint8Array, extension: string): string {
  return `${prefix}-${createHash('sha1').update(bytes).digest('hex').slice(0, 12)}${extension}`;
}

/** Writes `bytes` as `<prefix>-<hash><extension>` unless that file exists; returns its name. */
export function saveEntry(dir: string, prefix: string, bytes: Uint8Array, extension: string): string {
  mkdirSync(dir, { recursive: true });
  const name = contentName(prefix, bytes, extension);
  const path = join(dir, name);
  if (!existsSync(path)) writeFileSync(path, bytes);
  return name;
}

/** Files and bytes of a corpus folder. */
export function corpusSize(dir: string): { files: number; bytes: number } {
  const entries = readCorpus(dir);
  return { files: entries.length, bytes: entries.reduce((sum, entry) => sum + entry.bytes.length, 0) };
}
