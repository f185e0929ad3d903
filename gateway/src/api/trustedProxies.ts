// Who a request is from, for the per-address rate limits (admin API,
// presenter API, wrong room PINs) and the audit log. Behind an HTTP proxy
// (HAProxy in `mode http` with `option forwardfor`, nginx, …) every request
// comes from the proxy's address: a proxy we trust (`listen.trustedProxies`)
// names the client in X-Forwarded-For. The header is read only from a
// trusted peer and right to left, each trusted hop giving way to the address
// it received the request from; the first untrusted one is the client.
// Anyone else's X-Forwarded-For is ignored (a client could write any address
// there and get itself a fresh budget with every request).
// With the native data plane (relay.engine "native") the gateway's requests
// arrive over a Unix socket whose only client is that data plane, which
// appends the address it accepted the connection from: for those requests
// (no IP peer) the header's last hop is the client's own peer address.
import { isIP, type BlockList } from 'node:net';
import type { IncomingMessage } from 'node:http';
import { canonicalAddress } from '../policy/canonicalHost.js';
import { networkList } from '../policy/networkList.js';

export class TrustedProxies {
  private readonly networks: BlockList;
  private readonly none: boolean;
  private readonly localProxy: boolean;

  /** `localProxy`: a request with no IP peer came over our Unix socket from the data plane, which names its peer last in X-Forwarded-For. */
  constructor(entries: readonly string[], options: { localProxy?: boolean } = {}) {
    this.networks = networkList(entries);
    this.none = entries.length === 0;
    this.localProxy = options.localProxy ?? false;
  }

  trusts(address: string): boolean {
    const family = isIP(address);
    return family !== 0 && this.networks.check(address, family === 4 ? 'ipv4' : 'ipv6');
  }

  /** The client's address: the socket's peer, or what a trusted proxy says it is. */
  clientAddress(request: IncomingMessage): string | undefined {
    const peer = request.socket.remoteAddress;
    if (peer === undefined) return this.localProxy ? this.resolveLocal(request.headers['x-forwarded-for']) : undefined;
    return this.resolve(peer, request.headers['x-forwarded-for']);
  }

  /**
   * A request over our Unix socket: the last hop is the peer the data plane
   * accepted (believed as a socket's own address is), and from there the
   * usual walk through trusted proxies. Undefined without a usable last hop.
   */
  resolveLocal(forwardedFor: string | readonly string[] | undefined): string | undefined {
    const hops = hopsOf(forwardedFor);
    const peer = bareAddress(hops.at(-1) ?? '');
    return peer === undefined ? undefined : this.resolve(peer, hops.slice(0, -1));
  }

  /** The decision itself, on the peer's address and the header's value(s). */
  resolve(peer: string, forwardedFor: string | readonly string[] | undefined): string {
    let client = canonicalAddress(peer);
    if (this.none || forwardedFor === undefined || !this.trusts(client)) return client;
    const hops = hopsOf(forwardedFor);
    for (let index = hops.length - 1; index >= 0; index--) {
      const hop = bareAddress(hops[index] ?? '');
      // Garbage in the chain: the last trusted hop is all we know.
      if (hop === undefined) return client;
      client = canonicalAddress(hop);
      if (!this.trusts(client)) return client;
    }
    return client;
  }
}

/** X-Forwarded-For's hops, first to last, over all of its header lines. */
function hopsOf(forwardedFor: string | readonly string[] | undefined): string[] {
  if (forwardedFor === undefined) return [];
  return (typeof forwardedFor === 'string' ? [forwardedFor] : forwardedFor).join(',').split(',').map((hop) => hop.trim()).filter((hop) => hop !== '');
}

/** An address as proxies write it: bare, `[v6]`, `v4:port` or `[v6]:port`; undefined when it is none of these. */
function bareAddress(text: string): string | undefined {
  if (isIP(text) !== 0) return text;
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(text);
  if (bracketed?.[1] && isIP(bracketed[1]) === 6) return bracketed[1];
  const withPort = /^(\d+\.\d+\.\d+\.\d+):\d{1,5}$/.exec(text);
  if (withPort?.[1] && isIP(withPort[1]) === 4) return withPort[1];
  return undefined;
}
