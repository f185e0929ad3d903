import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { DisplayConfig } from '../config/configSchema.js';
import type { DisplayRecord } from './brokerStore.js';

/**
 * The displays of the configuration file: the seeds the broker writes into
 * its store at start (managed by the file: the API may not change them), and
 * their signage targets (`autoProject`, whose credentials stay in this
 * process and never reach a store).
 */
export class DisplayDirectory {
  private readonly displays = new Map<string, DisplayConfig>();

  constructor(displays: DisplayConfig[]) {
    for (const config of displays) this.displays.set(config.id, config);
  }

  get(id: string): DisplayConfig | undefined {
    return this.displays.get(id);
  }

  list(): DisplayConfig[] {
    return [...this.displays.values()];
  }

  /** The store records of the configured displays. */
  seeds(now: number): DisplayRecord[] {
    return this.list().map((config) => ({
      id: config.id, name: config.name ?? config.id, ...(config.location === undefined ? {} : { location: config.location }),
      ...(config.desktop === undefined ? {} : { desktop: config.desktop }), tokenDigest: tokenDigest(config.token), managedBy: 'config', createdAt: now, updatedAt: now,
    }));
  }
}

/** Hex SHA-256 of a display token: what the store keeps instead of the token. */
export function tokenDigest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Constant-time comparison of fixed-length digests, so a token leaks nothing through timing. */
export function tokenMatches(record: DisplayRecord, token: unknown): boolean {
  if (typeof token !== 'string') return false;
  const expected = Buffer.from(record.tokenDigest, 'hex');
  const given = createHash('sha256').update(token).digest();
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** A new display token: 192 random bits, URL-safe (it travels in the display page's address once). */
export function newDisplayToken(): string {
  return randomBytes(24).toString('base64url');
}
