import { readFileSync, renameSync, writeFileSync } from 'node:fs';

/**
 * Trust-on-first-use memory: target "host:port" → SHA-256 fingerprint.
 * A small JSON file read on each use so every cluster worker sees the others' records;
 * written by rename so a reader never sees half a file.
 */
export class PinStore {
  constructor(private readonly path: string) {}

  get(target: string): string | undefined {
    return this.readAll()[target];
  }

  record(target: string, fingerprint: string): void {
    const all = this.readAll();
    all[target] = fingerprint;
    const temp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temp, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
    renameSync(temp, this.path);
  }

  private readAll(): Record<string, string> {
    try {
      const parsed: unknown = JSON.parse(readFileSync(this.path, 'utf8'));
      return typeof parsed === 'object' && parsed !== null ? parsed as Record<string, string> : {};
    } catch {
      return {};
    }
  }
}
