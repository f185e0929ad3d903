// SOAP over HTTP(S) to a display's gateway: WS-Transfer Get and the projector
// service. A gateway's certificate is usually its own self-signed one, so it
// is trusted on first use and pinned (known-gateways.json): the first
// connection only reads the certificate, and every request after it is made
// with that certificate as the one trusted root. A changed certificate stops
// the CLI before anything (credentials included) is sent.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect as tlsConnect, type PeerCertificate } from 'node:tls';
import { MAX_WSD_MESSAGE_BYTES, readWsdMessage, writeWsdMessage, type WsdMessage } from '@lanterna/protocol/wsd';
import { EXIT, PresenterError } from './presenterError.js';
import { knownGateways, rememberGateway } from './presenterState.js';

const REQUEST_TIMEOUT_MS = 5000;

export interface SoapTarget {
  readonly url: URL;
  /** For an IPv6 link-local host: the interface to reach it through. */
  readonly zone?: string | undefined;
}

function connectHost(target: SoapTarget): string {
  const host = target.url.hostname.replace(/^\[|\]$/g, '');
  return target.zone && host.toLowerCase().startsWith('fe80:') ? `${host}%${target.zone}` : host;
}

function port(url: URL): number {
  return Number(url.port || (url.protocol === 'https:' ? 443 : 80));
}

/** The gateway's certificate, pinned on first sight; a different one later is refused. */
async function pinnedCertificate(target: SoapTarget, stateDir: string): Promise<string> {
  const certificate = await new Promise<PeerCertificate>((resolve, reject) => {
    const socket = tlsConnect({ host: connectHost(target), port: port(target.url), rejectUnauthorized: false, servername: '', timeout: REQUEST_TIMEOUT_MS }, () => {
      const peer = socket.getPeerCertificate();
      socket.end();
      resolve(peer);
    });
    socket.once('error', reject);
    socket.once('timeout', () => socket.destroy(new Error('no TLS answer in time')));
  }).catch((error: unknown) => {
    throw new PresenterError(EXIT.unreachable, `cannot reach ${target.url.host}: ${(error as Error).message}`);
  });
  const key = target.url.host;
  const known = knownGateways(stateDir)[key];
  if (known === undefined) rememberGateway(stateDir, key, certificate.fingerprint256);
  else if (known !== certificate.fingerprint256) {
    throw new PresenterError(EXIT.unreachable, `the gateway at ${key} shows a different certificate than before (${certificate.fingerprint256}, was ${known}): `
      + `if it was really replaced, remove its line from known-gateways.json in ${stateDir}`, 'certificate-changed');
  }
  return `-----BEGIN CERTIFICATE-----\n${certificate.raw.toString('base64').replace(/(.{64})/g, '$1\n')}\n-----END CERTIFICATE-----\n`;
}

/** Posts one message and reads the answer (a SOAP fault is an answer too). */
export async function postSoap(target: SoapTarget, message: WsdMessage, stateDir: string): Promise<WsdMessage> {
  const body = writeWsdMessage(message);
  const https = target.url.protocol === 'https:';
  const ca = https ? await pinnedCertificate(target, stateDir) : undefined;
  const options = {
    host: connectHost(target), port: port(target.url), path: `${target.url.pathname}${target.url.search}`, method: 'POST',
    headers: { host: target.url.host, 'content-type': 'application/soap+xml; charset=utf-8', 'content-length': Buffer.byteLength(body), 'user-agent': 'lanterna-present' },
    timeout: REQUEST_TIMEOUT_MS,
    // Pinned: the one certificate seen first is the only root, whatever name or address it carries.
    ...(ca ? { ca, checkServerIdentity: () => undefined } : {}),
  };
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    const request = (https ? httpsRequest : httpRequest)(options, resolve);
    request.once('error', reject);
    request.once('timeout', () => request.destroy(new Error('no answer in time')));
    request.end(body);
  }).catch((error: unknown) => {
    throw new PresenterError(EXIT.unreachable, `cannot reach ${target.url.host}: ${(error as Error).message}`);
  });
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_WSD_MESSAGE_BYTES) throw new PresenterError(EXIT.unreachable, `${target.url.host} answered with more than ${MAX_WSD_MESSAGE_BYTES} bytes`);
    chunks.push(chunk);
  }
  const read = readWsdMessage(Buffer.concat(chunks));
  if (!read.ok) throw new PresenterError(EXIT.unreachable, `${target.url.host} answered HTTP ${response.statusCode ?? 0} with something that is not a SOAP message (${read.detail})`);
  return read.message;
}
