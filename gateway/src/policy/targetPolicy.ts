import { BlockList, isIP } from 'node:net';
import { networkList } from './networkList.js';
import { networkInterfaces } from 'node:os';
import { canonicalAddress } from './canonicalHost.js';

export interface TargetPolicyOptions {
  allowNetworks: string[];
  allowPorts: string[];
  /** The gateway's own listening endpoints: never a target, whatever the networks say. */
  ownPorts: number[];
}

export type PolicyVerdict = { allowed: true } | { allowed: false; reason: string };

function parseRange(text: string): [number, number] {
  const [low, high] = text.split('-').map(Number);
  if (low === undefined || !Number.isInteger(low) || low < 1 || low > 65535) throw new Error(`bad port range "${text}"`);
  const top = high ?? low;
  if (!Number.isInteger(top) || top < low || top > 65535) throw new Error(`bad port range "${text}"`);
  return [low, top];
}

/** No open relay: a target must sit in an allowed network and port range, checked on resolved addresses. */
export class TargetPolicy {
  private readonly networks: BlockList;
  private readonly ports: [number, number][];
  private readonly ownPorts: Set<number>;

  constructor(private readonly options: TargetPolicyOptions) {
    this.networks = networkList(options.allowNetworks);
    this.ports = options.allowPorts.map(parseRange);
    this.ownPorts = new Set(options.ownPorts);
  }

  /** `address` must be an IP literal (resolve names first, then check what you will connect to). */
  check(given: string, port: number): PolicyVerdict {
    if (isIP(given) === 0) return { allowed: false, reason: `"${given}" is not an IP address` };
    // One spelling per address, so `::ffff:7f00:1` is judged as the 127.0.0.1 it is.
    const address = canonicalAddress(given);
    const family = isIP(address);
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (!this.networks.check(address, type)) {
      return { allowed: false, reason: `${address} is outside the allowed networks (${this.options.allowNetworks.join(', ')})` };
    }
    if (!this.ports.some(([low, high]) => port >= low && port <= high)) {
      return { allowed: false, reason: `port ${port} is outside the allowed ports (${this.options.allowPorts.join(', ')})` };
    }
    if (this.ownPorts.has(port) && isLocalAddress(address)) {
      return { allowed: false, reason: `port ${port} on ${address} is the gateway itself` };
    }
    return { allowed: true };
  }
}

/** Loopback and "any" in both families; the gateway listens on every interface by default. */
const ownAddresses = new BlockList();
ownAddresses.addSubnet('127.0.0.0', 8, 'ipv4');
ownAddresses.addAddress('0.0.0.0', 'ipv4');
ownAddresses.addAddress('::1', 'ipv6');
ownAddresses.addAddress('::', 'ipv6');

function isLocalAddress(address: string): boolean {
  if (ownAddresses.check(address, isIP(address) === 4 ? 'ipv4' : 'ipv6')) return true;
  // Its LAN addresses count as "itself" too.
  return Object.values(networkInterfaces()).some((list) => list?.some((entry) => canonicalAddress(entry.address) === address) ?? false);
}
