import { createHash, timingSafeEqual } from 'node:crypto';
import type { DisplayConfig } from '../config/configSchema.js';

/**
 * The displays this gateway knows (from the config):
 * who they are and whether a token is theirs.
 */
export class DisplayDirectory {
  private readonly displays = new Map<string, { config: DisplayConfig; tokenHash: Buffer }>();

  constructor(displays: DisplayConfig[]) {
    for (const config of displays) this.displays.set(config.id, { config, tokenHash: digest(config.token) });
  }

  get(id: string): DisplayConfig | undefined {
    return this.displays.get(id)?.config;
  }

  /** Constant-time comparison of fixed-length digests, so a token leaks nothing through timing. */
  authenticate(id: string, token: unknown): DisplayConfig | undefined {
    const entry = this.displays.get(id);
    if (!entry || typeof token !== 'string') return undefined;
    return timingSafeEqual(entry.tokenHash, digest(token)) ? entry.config : undefined;
  }

  list(): DisplayConfig[] {
    return [...this.displays.values()].map((entry) => entry.config);
  }
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
