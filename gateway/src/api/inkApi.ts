// Ink on the display (issue 30): the display saves a PNG of its picture and
// the ink drawn over it (POST, its own token), and the gateway keeps it a
// while in the broker store (every worker and gateway sharing the store can
// answer). A presenter fetches the picture of its own projection with its stop
// token; the idle screen's whiteboard is fetched with the room PIN, checked
// under the wrong-PIN limits like a projection's (and not used up by it).
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { INK_MAX_PNG_BYTES, INK_PIN_HEADER, PRESENTER_STOP_TOKEN_HEADER, type InkRefusalCode } from '@lanterna/protocol';
import type { BrokerStore } from '../broker/brokerStore.js';
import type { DisplayRegistry } from '../broker/displayRegistry.js';
import type { PresenterProjections } from '../broker/presenterProjections.js';
import type { RoomPins } from '../broker/roomPins.js';
import type { TokenGuesses } from '../broker/tokenGuesses.js';
import { sourceKey } from '../broker/pinAttempts.js';
import type { RequestRateLimiter } from './requestRateLimiter.js';

const INK_PATH = /^\/v1\/displays\/([A-Za-z0-9._-]{1,64})\/(ink|whiteboard)$/;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const SAVES_WINDOW_MS = 60_000;

export interface InkSettings {
  /** Off: every save is refused (`ink-saving-off`); the welcome does not offer it either. */
  readonly saving: boolean;
  readonly keepMs: number;
  readonly savesPerMinute: number;
}

export interface InkApiDeps {
  settings: InkSettings;
  store: BrokerStore;
  displays: Pick<DisplayRegistry, 'authenticateDisplay'>;
  presenters: Pick<PresenterProjections, 'lookup'>;
  pins: Pick<RoomPins, 'check'>;
  /** The display token's check counts with every other token check. */
  guesses: TokenGuesses;
  /** The presenter API's per-address request rate also covers these reads. */
  limiter: RequestRateLimiter;
  logger: Logger;
  clientAddress: (request: IncomingMessage) => string | undefined;
}

const STATUS: Record<InkRefusalCode, number> = {
  'ink-saving-off': 403, 'no-ink': 404, 'too-large': 413, 'not-png': 415, unauthorized: 401, 'no-session': 409,
  'rate-limited': 429, 'pin-required': 401, 'pin-wrong': 403, 'pin-locked': 429, 'stop-token-wrong': 403, 'not-found': 404,
};

function refuse(response: ServerResponse, code: InkRefusalCode, message: string, retryAfterMs?: number): void {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'cache-control': 'no-store' };
  const body: Record<string, unknown> = { code, message };
  if (retryAfterMs !== undefined) {
    const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
    headers['retry-after'] = String(seconds);
    body.retryAfterSeconds = seconds;
  }
  response.writeHead(STATUS[code], headers);
  response.end(JSON.stringify(body));
}

/** Where a picture is kept in the store. */
export function inkKey(kind: 'session' | 'whiteboard', id: string): string {
  return `${kind}:${id}`;
}

class BodyTooLarge extends Error {}

/** The request's body, read no further than `maxBytes` (the server's request timeout bounds the time). */
async function readCappedBody(request: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(request.headers['content-length'] ?? '0');
  if (declared > maxBytes) throw new BodyTooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw new BodyTooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

function bearer(request: IncomingMessage): string | undefined {
  const match = /^Bearer (\S{1,512})$/.exec(request.headers.authorization ?? '');
  return match?.[1];
}

function sendPng(request: IncomingMessage, response: ServerResponse, base64: string): void {
  const etag = `"${createHash('sha256').update(base64).digest('base64url').slice(0, 27)}"`;
  if (request.headers['if-none-match'] === etag) {
    response.writeHead(304, { etag, 'cache-control': 'no-store' });
    response.end();
    return;
  }
  const png = Buffer.from(base64, 'base64');
  response.writeHead(200, { 'content-type': 'image/png', 'content-length': String(png.length), etag, 'cache-control': 'no-store' });
  response.end(request.method === 'HEAD' ? undefined : png);
}

/** `/v1/displays/{id}/ink` and `/v1/displays/{id}/whiteboard`; returns false for any other path. */
export async function handleInk(deps: InkApiDeps, request: IncomingMessage, response: ServerResponse, path: string): Promise<boolean> {
  const match = INK_PATH.exec(path);
  if (!match) return false;
  const displayId = match[1] ?? '';
  const kind = match[2] === 'ink' ? 'session' : 'whiteboard';
  const address = deps.clientAddress(request);
  const source = sourceKey(address);
  const rate = deps.limiter.take(source);
  if (!rate.allowed) {
    refuse(response, 'rate-limited', 'too many requests from this address', rate.retryAfterMs);
    return true;
  }
  const log = deps.logger.child({ displayId, source, channel: 'ink' });
  const method = request.method ?? 'GET';
  if (method === 'POST') await save(deps, request, response, displayId, kind, address, log);
  else if (method === 'GET' || method === 'HEAD') await fetchPicture(deps, request, response, displayId, kind, source, log);
  else refuse(response, 'not-found', `no ink endpoint ${method} ${path}`);
  return true;
}

async function save(deps: InkApiDeps, request: IncomingMessage, response: ServerResponse, displayId: string, kind: 'session' | 'whiteboard', address: string | undefined, log: Logger): Promise<void> {
  // The token first: a stranger learns nothing, not even whether saving is on.
  const display = await deps.displays.authenticateDisplay(displayId, bearer(request));
  const verdict = await deps.guesses.check(address, 'display', display !== undefined);
  if (!verdict.allowed) {
    refuse(response, 'rate-limited', 'too many wrong tokens from this address', verdict.retryAfterMs);
    return;
  }
  if (!display) {
    log.warn({ event: 'ink-save-unauthorized' }, 'ink save with a wrong display token refused');
    refuse(response, 'unauthorized', 'the display token is wrong');
    return;
  }
  if (!deps.settings.saving) {
    refuse(response, 'ink-saving-off', 'saving ink is turned off on this gateway');
    return;
  }
  const saves = await deps.store.addToCounter(`ink-saves:${displayId}`, 1, SAVES_WINDOW_MS);
  if (saves.count > deps.settings.savesPerMinute) {
    refuse(response, 'rate-limited', `more than ${deps.settings.savesPerMinute} saves a minute from this display`, saves.resetAt - Date.now());
    return;
  }
  let id = displayId;
  if (kind === 'session') {
    const sessionId = new URL(request.url ?? '/', 'http://x').searchParams.get('session') ?? '';
    const session = sessionId === '' ? undefined : await deps.store.getSession(sessionId);
    if (session?.displayId !== displayId || session.state === 'ended') {
      refuse(response, 'no-session', 'no presentation of that id runs on this display');
      return;
    }
    id = sessionId;
  }
  if (!/^image\/png(;|$)/i.test(request.headers['content-type'] ?? '')) {
    refuse(response, 'not-png', 'the body must be image/png');
    return;
  }
  let png: Buffer;
  try {
    png = await readCappedBody(request, INK_MAX_PNG_BYTES);
  } catch (error) {
    if (error instanceof BodyTooLarge) {
      refuse(response, 'too-large', `a picture is at most ${INK_MAX_PNG_BYTES} bytes`);
      // Read no further: the rest of a body past the cap is not worth the time.
      response.once('finish', () => request.destroy());
      return;
    }
    throw error;
  }
  if (png.length < PNG_SIGNATURE.length || !png.subarray(0, PNG_SIGNATURE.length).equals(PNG_SIGNATURE)) {
    refuse(response, 'not-png', 'the body is not a png');
    return;
  }
  await deps.store.putInkPicture(inkKey(kind, id), png.toString('base64'), deps.settings.keepMs);
  log.info({ event: 'ink-saved', kind, sessionId: kind === 'session' ? id : undefined, bytes: png.length }, 'ink saved');
  response.writeHead(201, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  response.end(JSON.stringify({ kind, bytes: png.length, keepMs: deps.settings.keepMs }));
}

async function fetchPicture(deps: InkApiDeps, request: IncomingMessage, response: ServerResponse, displayId: string, kind: 'session' | 'whiteboard', source: string, log: Logger): Promise<void> {
  let key: string;
  if (kind === 'session') {
    const token = request.headers[PRESENTER_STOP_TOKEN_HEADER];
    const found = await deps.presenters.lookup(displayId, typeof token === 'string' ? token : undefined);
    if (!found.ok) {
      refuse(response, found.code === 'stop-token-wrong' ? 'stop-token-wrong' : 'no-ink', found.reason);
      return;
    }
    const sessionId = found.session?.sessionId ?? found.request?.sessionId ?? found.request?.requestId;
    if (sessionId === undefined) {
      refuse(response, 'no-ink', 'nothing was saved for this projection');
      return;
    }
    key = inkKey('session', sessionId);
  } else {
    // The whiteboard is for the room: the PIN proves the asker can see the display. It is not used up (nothing is projected).
    const pin = request.headers[INK_PIN_HEADER];
    const check = await deps.pins.check(displayId, typeof pin === 'string' ? pin : undefined, source);
    if (!check.ok) {
      if (check.code === 'pin-locked') {
        log.warn({ event: 'pin-locked', scope: check.scope, retryAfterMs: check.retryAfterMs }, 'room pin locked after too many wrong pins (whiteboard)');
        refuse(response, 'pin-locked', `too many wrong pins for this ${check.scope === 'display' ? 'display' : 'source address'}`, check.retryAfterMs);
      } else if (check.code === 'pin-wrong') {
        log.info({ event: 'pin-wrong', attemptsLeft: check.attemptsLeft }, 'wrong room pin (whiteboard)');
        refuse(response, 'pin-wrong', 'the room pin is wrong');
      } else refuse(response, 'pin-required', 'the room pin is required');
      return;
    }
    key = inkKey('whiteboard', displayId);
  }
  const base64 = await deps.store.getInkPicture(key);
  if (base64 === undefined && kind === 'session') {
    // The presenter page asks as it follows its projection: "nothing yet" is an answer, not an error.
    response.writeHead(204, { 'cache-control': 'no-store' });
    response.end();
    return;
  }
  if (base64 === undefined) {
    refuse(response, 'no-ink', 'nothing was saved (or it has expired)');
    return;
  }
  sendPng(request, response, base64);
}
