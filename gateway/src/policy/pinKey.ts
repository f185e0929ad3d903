import { canonicalHost } from './canonicalHost.js';

/**
 * The key a certificate pin is stored under: one spelling per server, so that
 * `RDP1.corp`, `rdp1.corp.` and `::ffff:10.0.0.5` do not each get a fresh
 * first use.
 */
export function pinKey(host: string, port: number): string {
  return `${canonicalHost(host)}:${port}`;
}

/** A pin key written by hand ("RDP1.corp:3389", "[::1]:3389") in its canonical spelling, or undefined. */
export function canonicalPinKey(key: string): string | undefined {
  const match = /^(.+):(\d{1,5})$/.exec(key.trim());
  if (!match?.[1] || !match[2]) return undefined;
  const port = Number(match[2]);
  if (port < 1 || port > 65535) return undefined;
  return pinKey(match[1], port);
}
