// A set of networks from configuration ("10.0.0.0/8", "fd00::/8", or a bare
// address for one host) as Node's BlockList, which matches IPv4-mapped IPv6
// against IPv4 rules itself. Used for the target policy's allowed networks
// and the listener's trusted proxies.
import { BlockList, isIP } from 'node:net';

/** The networks, or an error naming the first bad entry. */
export function networkList(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const cidr of entries) {
    const problem = networkProblem(cidr);
    if (problem !== undefined) throw new Error(problem);
    const [address = '', bits] = cidr.split('/');
    const family = isIP(address);
    list.addSubnet(address, bits === undefined ? (family === 4 ? 32 : 128) : Number(bits), family === 4 ? 'ipv4' : 'ipv6');
  }
  return list;
}

/** Why `cidr` is not a network (undefined when it is one): for the configuration schema's words. */
export function networkProblem(cidr: string): string | undefined {
  const [address, bits, extra] = cidr.split('/');
  const family = address ? isIP(address) : 0;
  if (!address || family === 0 || extra !== undefined) return `bad network "${cidr}"`;
  const prefix = bits === undefined ? (family === 4 ? 32 : 128) : Number(bits);
  if (!/^\d{1,3}$/.test(bits ?? '0') || !Number.isInteger(prefix) || prefix < 0 || prefix > (family === 4 ? 32 : 128)) return `bad network "${cidr}"`;
  return undefined;
}
