// Asks the gateway whether it answers before the page is loaded from it: a
// page loaded from a gateway that is down is Chromium's own error page, which
// never recovers by itself. The page's reconnect screen only exists once the
// page has loaded.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { TLSSocket, DetailedPeerCertificate } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { spkiPin } from './gatewayCertificatePins.js';

export type GatewayProbeResult =
  | { readonly ok: true; readonly status: number }
  | { readonly ok: false; readonly problem: string };

export interface GatewayProbeOptions {
  /** Gateway base URL. */
  readonly gateway: string;
  /** SPKI pins of the gateway's certificate; when given, the certificate chain is checked against them instead of CAs. */
  readonly pins?: readonly string[];
  readonly timeoutMs: number;
}

function chainPins(socket: TLSSocket): string[] {
  const pins: string[] = [];
  const seen = new Set<DetailedPeerCertificate>();
  // the chain as presented; a self-signed root is its own issuer
  let entry: Partial<DetailedPeerCertificate> | undefined = socket.getPeerCertificate(true);
  while (entry?.raw !== undefined && !seen.has(entry as DetailedPeerCertificate)) {
    seen.add(entry as DetailedPeerCertificate);
    pins.push(spkiPin(new X509Certificate(entry.raw)));
    entry = entry.issuerCertificate;
  }
  return pins;
}

/** GET <gateway>/healthz; ok means the gateway answered 200 (with a trusted certificate). */
export function probeGateway(options: GatewayProbeOptions): Promise<GatewayProbeResult> {
  const base = new URL(options.gateway);
  if (!base.pathname.endsWith('/')) base.pathname = `${base.pathname}/`;
  const url = new URL('healthz', base);
  const pins = options.pins ?? [];
  const secure = url.protocol === 'https:';
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: GatewayProbeResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      resolve(result);
    };
    const onResponse = (response: IncomingMessage): void => {
      if (secure && pins.length > 0) {
        const presented = chainPins(response.socket as unknown as TLSSocket);
        if (!presented.some((pin) => pins.includes(pin))) {
          finish({ ok: false, problem: 'the gateway presented a certificate other than the configured one' });
          return;
        }
      }
      response.resume();
      const status = response.statusCode ?? 0;
      finish(status === 200 ? { ok: true, status } : { ok: false, problem: `the gateway answered HTTP ${status}` });
    };
    const request = secure
      ? httpsRequest(url, { method: 'GET', rejectUnauthorized: pins.length === 0, agent: false }, onResponse)
      : httpRequest(url, { method: 'GET', agent: false }, onResponse);
    const timer = setTimeout(() => finish({ ok: false, problem: `no answer within ${options.timeoutMs} ms` }), options.timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) => finish({ ok: false, problem: describeNetworkError(error) }));
    request.end();
  });
}

function describeNetworkError(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ECONNREFUSED': return 'connection refused (is the gateway running?)';
    case 'ENOTFOUND': case 'EAI_AGAIN': return 'the gateway\'s name does not resolve';
    case 'EHOSTUNREACH': case 'ENETUNREACH': return 'the gateway\'s network cannot be reached';
    case 'ECONNRESET': return 'the gateway closed the connection';
    case 'DEPTH_ZERO_SELF_SIGNED_CERT': case 'SELF_SIGNED_CERT_IN_CHAIN': case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
      return 'the gateway\'s certificate is not trusted (set gatewayCertificate to its certificate file)';
    default: return (error.code ?? error.message).toLowerCase();
  }
}
