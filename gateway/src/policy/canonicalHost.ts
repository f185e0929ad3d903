import { isIP } from 'node:net';

/**
 * One spelling per host, for comparing and keying: names in lower case without
 * trailing dots; IPv4-mapped IPv6 (`::ffff:7f00:1`) as IPv4; other IPv6
 * compressed, lower case and bracketed (`0:0:0:0:0:0:0:1` → `[::1]`).
 */
export function canonicalHost(host: string): string {
  let text = host.trim();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  if (isIP(text) === 6) {
    // A zone (fe80::1%eth0) names a link, not a host part: kept as written, the address compressed.
    const zone = text.includes('%') ? text.slice(text.indexOf('%')) : '';
    const compressed = new URL(`http://[${text.slice(0, text.length - zone.length)}]/`).hostname.slice(1, -1) + zone;
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

/** The canonical address without IPv6 brackets, for APIs that take a bare IP literal. */
export function canonicalAddress(address: string): string {
  return canonicalHost(address).replace(/^\[(.*)\]$/, '$1');
}
