import { isIP } from 'node:net';
import { hostname } from 'node:os';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * The Host names the gateway answers to. A DNS-rebinding page reaches the
 * gateway under the attacker's own name, so only names we know are served:
 * any IP literal (rebinding needs a name), localhost, this machine's host name
 * (bare, .local and as configured) and `listen.allowedHosts`.
 */
export class HostGuard {
  private readonly names: Set<string>;

  constructor(allowedHosts: readonly string[]) {
    const machine = hostname().toLowerCase();
    this.names = new Set(['localhost', machine, `${machine}.local`, ...allowedHosts.map((name) => name.toLowerCase().replace(/\.$/, ''))]);
  }

  /** True when the Host header (with or without a port) names this gateway. */
  allows(hostHeader: string | undefined): boolean {
    const host = hostOf(hostHeader);
    if (host === undefined) return false;
    return isIP(host) !== 0 || this.names.has(host);
  }
}

/** The host part of a Host header in lower case, IPv6 without brackets; undefined when malformed. */
function hostOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::\d{1,5})?$/.exec(header.trim());
  if (!match?.[1]) return undefined;
  return match[1].replace(/^\[(.*)\]$/, '$1').toLowerCase().replace(/\.$/, '');
}

/**
 * A browser always says where a WebSocket page came from; our pages come from
 * the gateway itself. Clients that send no Origin (kiosk launchers, load tests,
 * native tools) are not browsers and authenticate with tokens like everyone.
 */
export function originAllowed(request: Pick<IncomingMessage, 'headers'>, allowedOrigins: readonly string[]): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false;
  }
  if (allowedOrigins.includes(parsed.origin)) return true;
  return parsed.host.toLowerCase() === (request.headers.host ?? '').toLowerCase();
}

/** Constant-time check of `Authorization: Bearer <token>` against any of the accepted tokens. */
export function bearerMatches(request: IncomingMessage, tokens: readonly (string | undefined)[]): boolean {
  const header = request.headers.authorization ?? '';
  const given = header.startsWith('Bearer ') ? header.slice(7) : '';
  const digest = (text: string): Buffer => createHash('sha256').update(text).digest();
  let matched = false;
  for (const token of tokens) {
    // Start-up refuses short tokens; this is the last line should one slip through.
    if (token === undefined || token.length < 16) continue;
    if (timingSafeEqual(digest(given), digest(token))) matched = true;
  }
  return matched;
}
