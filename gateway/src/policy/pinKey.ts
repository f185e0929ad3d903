import { isIP } from 'node:net';

/**
 * The key a certificate pin is stored under: one spelling per server, so that
 * `RDP1.corp`, `rdp1.corp.` and `::ffff:10.0.0.5` do not each get a fresh
 * first use. Names: lower case, no trailing dots. IPv4-mapped IPv6 becomes
 * IPv4; IPv6 is compressed and bracketed.
 */
export function pinKey(host: string, port: number): string {
  return `${canonicalHost(host)}:${port}`;
}

export function canonicalHost(host: string): string {
  let text = host.trim();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  if (isIP(text) === 6) {
    const compressed = new URL(`http://[${text}]/`).hostname.slice(1, -1);
    const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(compressed);
    if (mapped?.[1] && mapped[2]) {
      const high = parseInt(mapped[1], 16);
      const low = parseInt(mapped[2], 16);
      return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
    }
    return `[${compressed}]`;
  }
  if (isIP(text) === 4) return text;
  return text.toLowerCase().replace(/\.+$/, '');
}

/** A pin key written by hand ("RDP1.corp:3389", "[::1]:3389") in its canonical spelling, or undefined. */
export function canonicalPinKey(key: string): string | undefined {
  const match = /^(.+):(\d{1,5})$/.exec(key.trim());
  if (!match?.[1] || !match[2]) return undefined;
  const port = Number(match[2]);
  if (port < 1 || port > 65535) return undefined;
  return pinKey(match[1], port);
}
