import { connect as tcpConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket, type PeerCertificate } from 'node:tls';
import { parseConnectionConfirm, parseConnectionRequest, relayedProtocolName, PROTOCOL } from '@lanterna/protocol';
import { subjectPublicKey, sha256Fingerprint } from '../rdp/subjectPublicKey.js';
import { SessionError } from '../session/sessionError.js';
import type { TargetPolicy } from '../policy/targetPolicy.js';
import type { CertificatePolicy, Trust } from '../policy/certificatePolicy.js';
import { pinKey } from '../policy/pinKey.js';
import { canonicalAddress } from '../policy/canonicalHost.js';
import { readOneTpkt, ReadError } from './socketReads.js';
import { resolveHost, ResolveError, type LookupAll } from './hostResolver.js';
import { targetTlsContext } from './targetTlsContext.js';

export interface ConnectTimeouts { dnsMs: number; connectMs: number; confirmMs: number; tlsMs: number }

export interface ConnectRequest {
  target: { host: string; port: number };
  connectionRequest: Buffer;
  policy: TargetPolicy;
  certificates: CertificatePolicy;
  timeouts: ConnectTimeouts;
  ca?: string | undefined;
  /** Reports each finished phase with its duration, for metrics and logs. */
  onPhase?: (phase: 'connect' | 'x224' | 'tls', ms: number) => void;
  /**
   * Ends whichever phase is under way at once. Its reason, when a
   * SessionError, is what the handshake rejects with; otherwise the gateway
   * is shutting down.
   */
  signal?: AbortSignal | undefined;
  /** The name resolver (the system's by default). */
  lookup?: LookupAll | undefined;
  /** Refuse plain TLS: without NLA a server (or someone in the middle) could pick TLS after the display offered NLA. */
  requireNla?: boolean | undefined;
}

export interface SecuredInfo {
  type: 'secured';
  protocol: 'ssl' | 'hybrid' | 'hybrid-ex';
  tlsVersion: string;
  cipher: string;
  certificates: string[];
  publicKey: string;
  fingerprint: string;
  trust: Trust;
}

export interface ConnectedTarget {
  socket: TLSSocket;
  /**
   * Bytes queued beneath the TLS socket, on its TCP socket, that the kernel
   * has not taken. OpenSSL writes its own records (a key update's answer)
   * straight to the TCP handle, so the TLS socket's writableLength never
   * counts them; libuv's write queue on the handle does.
   */
  writeQueued: () => number;
  confirm: Buffer;
  secured: SecuredInfo;
  address: string;
}

/** A Connection Confirm's reply is a few dozen bytes; anything near this is not RDP. */
const MAX_CONFIRM_BYTES = 1024;

/**
 * The whole server-side handshake as one function, in the shape of a
 * clean-path connect: every phase has its own deadline and its own typed
 * error; every read is capped. Resolves with a TLS socket that is paused and
 * ready to relay, or rejects with a SessionError.
 */
export async function connectTarget(request: ConnectRequest): Promise<ConnectedTarget> {
  const requested = parseRequest(request.connectionRequest);
  if ((requested & (PROTOCOL.SSL | PROTOCOL.HYBRID | PROTOCOL.HYBRID_EX)) === 0) {
    throw new SessionError('request', 'legacy-security', 'the display asked for legacy RDP security, which the gateway does not relay', { requestedProtocols: requested });
  }
  if (request.requireNla && (requested & (PROTOCOL.HYBRID | PROTOCOL.HYBRID_EX)) === 0) {
    throw new SessionError('request', 'negotiation-failed', 'the gateway requires Network Level Authentication, and the display did not offer it', { requestedProtocols: requested });
  }
  const address = await resolveAllowed(request);
  let started = performance.now();
  const tcp = await openTcp(address, request.target.port, request.timeouts.connectMs, request.signal);
  request.onPhase?.('connect', performance.now() - started);
  try {
    started = performance.now();
    tcp.write(request.connectionRequest);
    const confirm = await readConfirm(tcp, request.timeouts.confirmMs, request.signal);
    const protocol = acceptedProtocol(confirm);
    if (request.requireNla && protocol === 'ssl') {
      throw new SessionError('x224', 'negotiation-failed', "the presenter's computer chose plain TLS, and the gateway requires Network Level Authentication");
    }
    request.onPhase?.('x224', performance.now() - started);

    started = performance.now();
    const socket = await startTls(tcp, request, request.timeouts.tlsMs);
    request.onPhase?.('tls', performance.now() - started);
    const secured = await judgeCertificate(socket, request, protocol, address);
    const handle = (tcp as unknown as { _handle?: { writeQueueSize?: number } | null });
    return { socket, writeQueued: () => handle._handle?.writeQueueSize ?? 0, confirm, secured, address };
  } catch (error) {
    tcp.destroy();
    throw error;
  }
}

function ignoreLateError(): void {
  // The socket is destroyed by the error itself; see startTls.
}

/** A server's RDP_NEG_FAILURE is forwarded to the client before the error, so it can show its own words too. */
export class NegotiationFailure extends SessionError {
  constructor(readonly confirm: Buffer, failureCode: number) {
    super('x224', 'negotiation-failed', undefined, { failureCode });
  }
}

function parseRequest(pdu: Buffer): number {
  try {
    return parseConnectionRequest(pdu).requestedProtocols;
  } catch (error) {
    throw new SessionError('request', 'bad-message', `the display's connection request is malformed: ${(error as Error).message}`);
  }
}

/** What an aborted phase rejects with: the signal's SessionError, or the gateway's shutdown. */
export function abortReason(signal: AbortSignal | undefined, phase: SessionError['phase']): SessionError {
  return signal?.reason instanceof SessionError ? signal.reason : new SessionError(phase, 'gateway-shutdown');
}

/** What resolving a target and checking it against the policy needs. */
export type AllowedAddressRequest = Pick<ConnectRequest, 'target' | 'policy' | 'signal' | 'lookup'> & { timeouts: Pick<ConnectTimeouts, 'dnsMs'> };

/**
 * The first resolved address of the target that the policy allows, or the
 * connect phase's error (both engines answer with this one function).
 */
export async function resolveAllowed(request: AllowedAddressRequest): Promise<string> {
  const { host, port } = request.target;
  let addresses: string[];
  try {
    addresses = await resolveHost(host, { deadlineMs: request.timeouts.dnsMs, signal: request.signal, lookup: request.lookup });
  } catch (error) {
    if (!(error instanceof ResolveError)) throw error;
    if (error.kind === 'aborted') throw abortReason(request.signal, 'connect');
    if (error.kind === 'timeout') throw new SessionError('connect', 'timeout', error.message, { phase: 'dns' });
    throw new SessionError('connect', 'target-unreachable', error.message, { error: error.code });
  }
  // Check what we will actually connect to, not the name: a name must not smuggle in a forbidden address.
  const reasons: string[] = [];
  for (const address of addresses) {
    const verdict = request.policy.check(address, port);
    if (verdict.allowed) return address;
    reasons.push(verdict.reason);
  }
  throw new SessionError('connect', 'target-forbidden', undefined, {}, { reasons });
}

/**
 * One socket phase's deadline and abort: `fail` destroys the socket and rejects
 * with the reason; `settled` (the phase finished) disarms both.
 */
function phaseGuard(
  phase: 'connect' | 'tls', timeoutMs: number, signal: AbortSignal | undefined, socket: Socket,
  reject: (error: SessionError) => void, timedOut: () => SessionError,
): { fail: (error: SessionError) => void; settled: () => void } {
  const timer = setTimeout(() => fail(timedOut()), timeoutMs);
  const onAbort = (): void => fail(abortReason(signal, phase));
  signal?.addEventListener('abort', onAbort, { once: true });
  function settled(): void {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
  function fail(error: SessionError): void {
    settled();
    socket.destroy();
    reject(error);
  }
  return { fail, settled };
}

function openTcp(address: string, port: number, timeoutMs: number, signal?: AbortSignal): Promise<Socket> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortReason(signal, 'connect'));
      return;
    }
    const socket = tcpConnect({ host: address, port, noDelay: true });
    const { fail, settled } = phaseGuard('connect', timeoutMs, signal, socket, reject,
      () => new SessionError('connect', 'timeout', `the presenter's computer did not answer within ${timeoutMs} ms`, { phase: 'connect' }, { address, port }));
    socket.once('connect', () => {
      settled();
      socket.removeAllListeners('error');
      socket.pause();
      resolve(socket);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      const refused = error.code === 'ECONNREFUSED';
      fail(new SessionError('connect', refused ? 'target-refused' : 'target-unreachable', undefined, { error: error.code ?? error.message }));
    });
  });
}

async function readConfirm(socket: Socket, timeoutMs: number, signal: AbortSignal | undefined): Promise<Buffer> {
  try {
    return await readOneTpkt(socket, { timeoutMs, maxBytes: MAX_CONFIRM_BYTES, signal });
  } catch (error) {
    if (!(error instanceof ReadError)) throw error;
    if (error.kind === 'aborted') throw abortReason(signal, 'x224');
    if (error.kind === 'timeout') throw new SessionError('x224', 'timeout', "the presenter's computer did not confirm the connection in time", { phase: 'x224' });
    if (error.kind === 'closed') throw new SessionError('x224', 'target-refused', `the presenter's computer closed the connection: ${error.message}`);
    throw new SessionError('x224', 'x224-invalid', undefined, {}, { reason: error.message });
  }
}

function acceptedProtocol(confirm: Buffer): SecuredInfo['protocol'] {
  let parsed: ReturnType<typeof parseConnectionConfirm>;
  try {
    parsed = parseConnectionConfirm(confirm);
  } catch (error) {
    throw new SessionError('x224', 'x224-invalid', undefined, {}, { reason: (error as Error).message });
  }
  if (parsed.kind === 'failure') throw new NegotiationFailure(confirm, parsed.failureCode);
  if (parsed.kind === 'none') throw new SessionError('x224', 'legacy-security');
  const name = relayedProtocolName(parsed.selectedProtocol);
  if (name === undefined) {
    if (parsed.selectedProtocol === PROTOCOL.RDP) throw new SessionError('x224', 'legacy-security');
    throw new SessionError('x224', 'negotiation-failed', 'the presenter chose a security protocol the gateway does not relay', { selectedProtocol: parsed.selectedProtocol });
  }
  return name;
}

function startTls(tcp: Socket, request: ConnectRequest, timeoutMs: number): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const { signal } = request;
    if (signal?.aborted) {
      reject(abortReason(signal, 'tls'));
      return;
    }
    const host = request.target.host;
    const socket = tlsConnect({
      socket: tcp,
      servername: isIP(host) === 0 ? host : undefined,
      // The certificate is judged by our policy (pins, first use, CA) after the handshake.
      rejectUnauthorized: false,
      // Node would check the name against `host`, which a socket-wrapping connect
      // leaves as "localhost": a certificate for localhost passed for any IP
      // target. Only the chain is Node's job; judgeCertificate checks the identity.
      checkServerIdentity: () => undefined,
      secureContext: targetTlsContext(request.ca),
    });
    const { fail, settled } = phaseGuard('tls', timeoutMs, signal, socket, reject,
      () => new SessionError('tls', 'timeout', `the TLS handshake did not finish within ${timeoutMs} ms`, { phase: 'tls' }));
    socket.once('secureConnect', () => {
      settled();
      socket.removeAllListeners('error');
      // From here to the relay's own listener (the certificate is judged
      // meanwhile, which may wait on the pin store) a reset must not be an
      // uncaught error that ends the worker; the socket is then destroyed and
      // whoever holds it next sees that.
      socket.on('error', ignoreLateError);
      socket.setNoDelay(true);
      socket.pause();
      resolve(socket);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      fail(new SessionError('tls', 'tls-failed', undefined, { error: error.code ?? 'tls-error' }, { reason: error.message }));
    });
  });
}

async function judgeCertificate(socket: TLSSocket, request: ConnectRequest, protocol: SecuredInfo['protocol'], address: string): Promise<SecuredInfo> {
  const chain = peerChain(socket);
  const leaf = chain[0];
  if (!leaf) {
    socket.destroy();
    throw new SessionError('tls', 'certificate-untrusted', 'the presenter sent no certificate');
  }
  let caVerified = socket.authorized;
  let caError = caVerified ? undefined : String(socket.authorizationError);
  if (caVerified) {
    // A chain that verifies proves nothing until it names the server we meant:
    // the name for a name, the address (an IP SAN) for an address.
    const host = canonicalAddress(request.target.host);
    const peer = socket.getPeerX509Certificate();
    const matches = isIP(host) === 0 ? peer?.checkHost(host) !== undefined : peer?.checkIP(host) !== undefined;
    if (!matches) { caVerified = false; caError = `certificate is not for ${request.target.host}`; }
  }
  const fingerprint = sha256Fingerprint(leaf);
  let trust: Trust | SessionError;
  try {
    trust = await judgeServerCertificate(request.certificates, request.target, address, { fingerprint, caVerified, caError });
  } catch (error) {
    if (!(error instanceof SessionError)) throw error;
    trust = error;
  }
  if (socket.destroyed) throw new SessionError('tls', 'server-error', "the presenter's computer closed the connection right after the secure handshake");
  if (trust instanceof SessionError) {
    socket.destroy();
    throw trust;
  }
  const cipher = socket.getCipher();
  return {
    type: 'secured',
    protocol,
    tlsVersion: socket.getProtocol() ?? 'unknown',
    cipher: cipher.standardName,
    certificates: chain.map((der) => der.toString('base64')),
    publicKey: subjectPublicKey(leaf).toString('base64'),
    fingerprint,
    trust,
  };
}

/**
 * The certificate policy's verdict on the server's leaf under both its pin
 * keys (the name the broker gave and the address reached): its trust, or the
 * tls phase's error, with what the display may see apart from what only the
 * log may (both engines answer with this one function).
 */
export async function judgeServerCertificate(
  certificates: CertificatePolicy, target: { host: string; port: number }, address: string,
  facts: { fingerprint: string; caVerified: boolean; caError?: string | undefined },
): Promise<Trust> {
  const targets = [...new Set([pinKey(target.host, target.port), pinKey(address, target.port)])];
  const verdict = await certificates.judge({ targets, ...facts });
  if (verdict.trusted) return verdict.trust;
  const { pinnedAs, ...shown } = verdict.detail;
  throw new SessionError('tls', verdict.code, verdict.message, shown, { pinnedAs });
}

function peerChain(socket: TLSSocket): Buffer[] {
  const chain: Buffer[] = [];
  let cert: PeerCertificate | undefined = socket.getPeerCertificate(true);
  const seen = new Set<string>();
  while (cert?.raw && !seen.has(cert.fingerprint256)) {
    seen.add(cert.fingerprint256);
    chain.push(cert.raw);
    cert = (cert as PeerCertificate & { issuerCertificate?: PeerCertificate }).issuerCertificate;
  }
  return chain;
}
