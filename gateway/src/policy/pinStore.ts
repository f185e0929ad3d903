import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import lockfile from 'proper-lockfile';
import { canonicalPinKey } from './pinKey.js';
import { writeFileAtomically } from '../persist/atomicFile.js';

const FINGERPRINT = /^sha256:([0-9A-F]{2}:){31}[0-9A-F]{2}$/;
/** Several workers may record at once; each waits its turn for this long in all. */
const LOCK_RETRIES = { retries: 20, minTimeout: 10, maxTimeout: 200 };

/** Where trust-on-first-use pins live in the state directory. */
export function pinFile(stateDir: string): string {
  return join(stateDir, 'known-targets.json');
}

/** Beside the pin file: when each pin last let a session through (informative; the pins stay an admin-editable map). */
export function pinUseFile(pinPath: string): string {
  return pinPath.replace(/(\.json)?$/, '.used.json');
}

/** The pin file cannot be trusted (unreadable, not JSON, a bad entry): no server is treated as new. */
export class PinStoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PinStoreError';
  }
}

/**
 * Trust-on-first-use memory: canonical "host:port" → SHA-256 fingerprint.
 * The file below is the embedded default; a gateway farm shares one in Redis
 * (../redis/redisPinStore.ts). Both fail closed: an error, never "nothing known".
 */
export interface PinStore {
  /** The known fingerprint for each of these canonical keys that has one. */
  get(keys: readonly string[]): Promise<Map<string, string>>;
  /**
   * Records the fingerprint under every key that has none yet, atomically with
   * respect to other writers; returns what is known afterwards, so a caller
   * that raced another's first use judges against the winner.
   */
  recordMissing(keys: readonly string[], fingerprint: string): Promise<Map<string, string>>;
  /** Every pin (the admin API lists them). */
  list(): Promise<Map<string, string>>;
  /** Forgets these keys' pins (an admin accepted a new certificate); returns how many there were. */
  clear(keys: readonly string[]): Promise<number>;
  /** Checks the store can be used at all, at start; returns how many pins it holds. */
  check(): Promise<number>;
  /**
   * Notes that these pins let a session through at `at` (ms since the epoch),
   * for the admin's "last used". Informative: a failure here judges nothing.
   */
  markUsed(keys: readonly string[], at: number): Promise<void>;
  /** When each pin was last used, for the keys that have a note. */
  lastUsed(): Promise<Map<string, number>>;
}

/**
 * Trust-on-first-use memory in a file: canonical "host:port" → SHA-256 fingerprint, a
 * small JSON file an admin can read and edit (see docs/security.md, "Clearing a
 * changed certificate pin"). Read on each use so every cluster worker sees the
 * others' records. Fails closed: only a missing file means "nothing known";
 * any other problem is an error, and nothing is written over a file that could
 * not be read. Writes are read-modify-write under a lock file, through a
 * temp file, fsync and rename, so workers never lose each other's records.
 */
export class FilePinStore implements PinStore {
  constructor(private readonly path: string) {}

  /** The known fingerprint for each of these canonical keys that has one. */
  async get(keys: readonly string[]): Promise<Map<string, string>> {
    const all = await this.readAll();
    return new Map(keys.flatMap((key) => (all[key] ? [[key, all[key]] as const] : [])));
  }

  /**
   * Records the fingerprint under every key that has none yet, atomically with
   * respect to other writers; returns what is known afterwards, so a caller
   * that raced another worker's first use judges against the winner.
   */
  async recordMissing(keys: readonly string[], fingerprint: string): Promise<Map<string, string>> {
    // One writer at a time in this process: a hundred displays projecting one
    // presenter at once would otherwise all race for the file lock, and the
    // losers would fail closed. Queued writers usually find their keys recorded.
    const turn = this.writes.then(() => this.recordMissingNow(keys, fingerprint));
    this.writes = turn.catch(() => undefined);
    return turn;
  }

  private writes: Promise<unknown> = Promise.resolve();

  private async recordMissingNow(keys: readonly string[], fingerprint: string): Promise<Map<string, string>> {
    const before = await this.readAll();
    if (keys.every((key) => before[key] !== undefined)) return new Map(keys.map((key) => [key, before[key] ?? fingerprint] as const));
    let release: () => Promise<void>;
    try {
      release = await lockfile.lock(this.path, { retries: LOCK_RETRIES, stale: 10_000, realpath: false });
    } catch (error) {
      throw new PinStoreError(`cannot lock the certificate pins in ${this.path}: ${(error as Error).message}`);
    }
    try {
      const all = await this.readAll();
      const missing = keys.filter((key) => all[key] === undefined);
      if (missing.length > 0) {
        for (const key of missing) all[key] = fingerprint;
        await this.writeAll(all);
      }
      return new Map(keys.map((key) => [key, all[key] ?? fingerprint] as const));
    } finally {
      await release();
    }
  }

  async list(): Promise<Map<string, string>> {
    return new Map(Object.entries(await this.readAll()));
  }

  async clear(keys: readonly string[]): Promise<number> {
    const release = await lockfile.lock(this.path, { retries: LOCK_RETRIES, stale: 10_000, realpath: false });
    try {
      const all = await this.readAll();
      const present = keys.filter((key) => all[key] !== undefined);
      if (present.length > 0) {
        for (const key of present) Reflect.deleteProperty(all, key);
        await this.writeAll(all);
      }
      // A pin made again later starts without the old pin's "last used".
      await this.changeUses((uses) => { for (const key of keys) Reflect.deleteProperty(uses, key); }).catch(() => undefined);
      return present.length;
    } finally {
      await release();
    }
  }

  /**
   * In a second small file, so the pin file stays the `"host:port": "sha256:…"`
   * map an admin edits. Kept to the keys still pinned (a cap: it never holds
   * more entries than the pin file). Last writer wins between workers: two
   * notes a moment apart lose nothing worth keeping.
   */
  async markUsed(keys: readonly string[], at: number): Promise<void> {
    const turn = this.useWrites.then(async () => {
      const pinned = await this.readAll();
      await this.changeUses((uses) => {
        for (const key of keys) if (pinned[key] !== undefined) uses[key] = Math.max(uses[key] ?? 0, at);
        for (const key of Object.keys(uses)) if (pinned[key] === undefined) Reflect.deleteProperty(uses, key);
      });
    });
    this.useWrites = turn.catch(() => undefined);
    return turn;
  }

  private useWrites: Promise<unknown> = Promise.resolve();

  async lastUsed(): Promise<Map<string, number>> {
    return new Map(Object.entries(await this.readUses()));
  }

  private async changeUses(change: (uses: Record<string, number>) => void): Promise<void> {
    const uses = await this.readUses();
    change(uses);
    await writeFileAtomically(pinUseFile(this.path), `${JSON.stringify(uses, null, 2)}\n`);
  }

  /** The notes of use; an unreadable or malformed file is no notes (they are informative, never trusted for a verdict). */
  private async readUses(): Promise<Record<string, number>> {
    try {
      const parsed: unknown = JSON.parse(await readFile(pinUseFile(this.path), 'utf8'));
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
      return Object.fromEntries(Object.entries(parsed).filter((entry): entry is [string, number] => typeof entry[1] === 'number' && Number.isFinite(entry[1])));
    } catch {
      return {};
    }
  }

  /** Checks the file can be used at all; the gateway calls this at start to fail early with the file named. */
  async check(): Promise<number> {
    return Object.keys(await this.readAll()).length;
  }

  private async readAll(): Promise<Record<string, string>> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw new PinStoreError(`cannot read the certificate pins in ${this.path}: ${(error as Error).message}`);
    }
    // An admin may empty the file to forget every pin (docs/security.md, "Clearing a changed certificate pin").
    if (text.trim() === '') return {};
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new PinStoreError(`the certificate pins in ${this.path} are not valid JSON: ${(error as Error).message}`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new PinStoreError(`the certificate pins in ${this.path} must be an object of "host:port": "sha256:…"`);
    }
    const pins: Record<string, string> = {};
    for (const [key, value] of Object.entries(parsed)) {
      const canonical = canonicalPinKey(key);
      if (!canonical) throw new PinStoreError(`the certificate pins in ${this.path}: "${key}" is not host:port`);
      if (typeof value !== 'string' || !FINGERPRINT.test(value)) throw new PinStoreError(`the certificate pins in ${this.path}: "${key}" is not a sha256:AA:… fingerprint`);
      if (pins[canonical] !== undefined && pins[canonical] !== value) throw new PinStoreError(`the certificate pins in ${this.path}: two different pins for ${canonical}`);
      pins[canonical] = value;
    }
    return pins;
  }

  private async writeAll(all: Record<string, string>): Promise<void> {
    const sorted = Object.fromEntries(Object.entries(all).sort(([a], [b]) => a.localeCompare(b)));
    await writeFileAtomically(this.path, `${JSON.stringify(sorted, null, 2)}\n`);
  }
}
