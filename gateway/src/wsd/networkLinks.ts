// Which of our interface addresses a WS-Discovery peer is on: replies and
// XAddrs must name the address the peer can reach, and a datagram from a
// network we were not told to serve is dropped (a socket bound to the port
// also hears groups other programs joined on other interfaces).
import { isIP } from 'node:net';
import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os';

export interface NetworkLink {
  readonly interfaceName: string;
  readonly family: 'IPv4' | 'IPv6';
  readonly address: string;
  readonly netmask: string;
}

/**
 * The links to announce on: the named interfaces (or every non-loopback one
 * with an address when none are named); for IPv6 only link-local addresses,
 * which is what ff02::c reaches and what wsdd and Windows use for XAddrs.
 */
export function discoveryLinks(names: readonly string[], ipv6: boolean, all: NodeJS.Dict<NetworkInterfaceInfo[]> = networkInterfaces()): NetworkLink[] {
  const links: NetworkLink[] = [];
  for (const [interfaceName, infos] of Object.entries(all)) {
    if (names.length > 0 ? !names.includes(interfaceName) : (infos ?? []).some((info) => info.internal)) continue;
    for (const info of infos ?? []) {
      if (info.family === 'IPv4') links.push({ interfaceName, family: 'IPv4', address: info.address, netmask: info.netmask });
      else if (ipv6 && info.address.toLowerCase().startsWith('fe80:')) links.push({ interfaceName, family: 'IPv6', address: info.address, netmask: info.netmask });
    }
  }
  return links;
}

function ipv4Number(address: string): number {
  return address.split('.').reduce((value, part) => value * 256 + Number(part), 0);
}

function ipv6Words(address: string): number[] {
  const [head = '', tail] = address.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const middle = tail === undefined ? [] : new Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...middle, ...right].map((word) => Number.parseInt(word, 16));
}

function inSubnet(address: string, link: NetworkLink): boolean {
  if (link.family === 'IPv4') {
    const mask = ipv4Number(link.netmask);
    return isIP(address) === 4 && ((ipv4Number(address) & mask) >>> 0) === ((ipv4Number(link.address) & mask) >>> 0);
  }
  if (isIP(address) !== 6) return false;
  const a = ipv6Words(address);
  const b = ipv6Words(link.address);
  const m = ipv6Words(link.netmask);
  return a.every((word, i) => (word & (m[i] ?? 0)) === ((b[i] ?? 0) & (m[i] ?? 0)));
}

/** The link a datagram from `address` (zone suffix allowed) came over, or undefined for a foreign network. */
export function linkOf(address: string, links: readonly NetworkLink[]): NetworkLink | undefined {
  const [bare = '', zone] = address.split('%');
  if (zone !== undefined) return links.find((link) => link.family === 'IPv6' && link.interfaceName === zone);
  return links.find((link) => inSubnet(bare, link));
}
