// The presenter API (docs/presenter-api.md): the public list of displays and
// a presenter's projection (start with the room PIN, read its state, stop it
// with the stop token). An adapter over PresenterProjections: every decision
// is the broker's. No cookies anywhere, and every write must carry a custom
// header (a cross-site form cannot; a cross-site fetch would need a CORS
// preflight, which the gateway never grants) and, when a browser sends one,
// our own Origin: so no other page can drive it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import {
  PRESENTER_ERRORS,
  PRESENTER_REQUEST_HEADER,
  PRESENTER_STOP_TOKEN_HEADER,
  projectionChangeSchema,
  projectionRequestSchema,
  roomActionSchema,
  type RoomAction,
  type DisplayListing,
  type PresenterErrorCode,
  type PresenterRefusal,
  type LaserPoints,
  type ProjectionChange,
  type ProjectionRequestBody,
  type ProjectionStarted,
  type ProjectionStatus,
} from '@lanterna/protocol';
import type { PresenterProjections, ProjectionLookup } from '../broker/presenterProjections.js';
import type { RoomRequests } from '../broker/roomRequests.js';
import type { Requester } from '../broker/brokerStore.js';
import { sourceKey } from '../broker/pinAttempts.js';
import { bearerMatches, originAllowed } from './requestGuards.js';
import { BodyError, readJsonBody } from './jsonBody.js';
import type { RequestRateLimiter } from './requestRateLimiter.js';
import type { TokenGuesses } from '../broker/tokenGuesses.js';
import type { LaserFeed } from './laserFeed.js';

const MAX_BODY_BYTES = 32 * 1024;
const PROJECTION_PATH = /^\/v1\/displays\/([A-Za-z0-9._-]{1,64})\/projection$/;
const ROOM_PATH = /^\/v1\/displays\/([A-Za-z0-9._-]{1,64})\/room$/;
const LASER_PATH = /^\/v1\/displays\/([A-Za-z0-9._-]{1,64})\/projection\/laser$/;

export interface PresenterApiDeps {
  presenters: PresenterProjections;
  /** The room's moderation, for its host (issue 29). */
  rooms: RoomRequests;
  adminToken: string;
  /** The admin shortcut's token check counts with every other (broker/tokenGuesses.ts). */
  guesses: TokenGuesses;
  limiter: RequestRateLimiter;
  allowedOrigins: readonly string[];
  logger: Logger;
  /** The client's address (a trusted proxy's X-Forwarded-For, else the peer's). */
  clientAddress: (request: IncomingMessage) => string | undefined;
  /** The presenter socket's URL for a session, as reached at the request's Host. */
  presenterSocketUrl: (sessionId: string, host: string | undefined) => string;
  /** Where fingers touch the presenter's picture at the display (issue 30); absent: no laser endpoint. */
  laser?: LaserFeed | undefined;
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  response.end(JSON.stringify(body));
}

function refuse(response: ServerResponse, code: PresenterErrorCode, message?: string, extra: { retryAfterMs?: number | undefined; attemptsLeft?: number | undefined } = {}): void {
  const entry = PRESENTER_ERRORS[code];
  const body: PresenterRefusal = { code, message: message ?? entry.message };
  if (extra.retryAfterMs !== undefined) {
    const seconds = Math.max(1, Math.ceil(extra.retryAfterMs / 1000));
    response.setHeader('retry-after', String(seconds));
    body.retryAfterSeconds = seconds;
  }
  if (extra.attemptsLeft !== undefined) body.attemptsLeft = extra.attemptsLeft;
  json(response, entry.status, body);
}

/** Why a write is not a presenter page's (or a deliberate client's): undefined when it is. */
function forgeryReason(request: IncomingMessage, allowedOrigins: readonly string[], needsJson: boolean): string | undefined {
  if (!request.headers[PRESENTER_REQUEST_HEADER]) return `a presenter request carries the ${PRESENTER_REQUEST_HEADER} header`;
  if (!originAllowed(request, allowedOrigins)) return 'requests from other sites are refused';
  if (needsJson && !/^application\/json(;|$)/i.test(request.headers['content-type'] ?? '')) return 'the body must be application/json';
  return undefined;
}

/** What readBody needs of a protocol schema (zod/mini's safeParse). */
interface BodySchema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } };
}

/**
 * The body of a presenter's POST or PATCH read with `schema`, or undefined
 * once a bad-request refusal was sent (over-long, not JSON, or not what the
 * schema asks, naming the first wrong field).
 */
async function readBody<T>(request: IncomingMessage, response: ServerResponse, schema: BodySchema<T>): Promise<T | undefined> {
  try {
    const parsed = schema.safeParse(await readJsonBody(request, MAX_BODY_BYTES));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      refuse(response, 'bad-request', `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`.toLowerCase());
      return undefined;
    }
    return parsed.data;
  } catch (error) {
    if (error instanceof BodyError) {
      refuse(response, 'bad-request', error.message);
      return undefined;
    }
    throw error;
  }
}

/** A state-changing request from a page that is not ours (or not JSON) is refused here; true when it was. */
function refusedAsForged(deps: PresenterApiDeps, request: IncomingMessage, response: ServerResponse): boolean {
  const forged = forgeryReason(request, deps.allowedOrigins, true);
  if (forged !== undefined) refuse(response, 'bad-request', forged);
  return forged !== undefined;
}

function stopTokenOf(request: IncomingMessage): string | undefined {
  const value = request.headers[PRESENTER_STOP_TOKEN_HEADER];
  return typeof value === 'string' ? value : undefined;
}

/** Where the request stands (issue 29) beside its session's own state; `tag` changes whenever anything here does (long-poll `since`). */
function status(found: Extract<ProjectionLookup, { ok: true }>): ProjectionStatus {
  const { session, request } = found;
  const sessionId = session?.sessionId ?? request?.sessionId ?? request?.requestId ?? '';
  const state = session?.state ?? (request?.state === 'waiting' ? 'waiting' : 'ended');
  const body: ProjectionStatus = {
    sessionId, state,
    ...(session?.endReason === undefined ? {} : { endReason: session.endReason }),
    ...(session === undefined ? {} : { touch: session.touch === true && session.state !== 'ended' }),
    ...(request === undefined ? {} : {
      request: {
        requestId: request.requestId, state: request.state,
        ...(request.slot === undefined ? {} : { slot: request.slot }),
        ...(request.position === undefined ? {} : { position: request.position }),
        ...(request.decidedBy === undefined ? {} : { by: request.decidedBy }),
        ...(request.reason === undefined ? {} : { reason: request.reason }),
      },
    }),
    tag: '',
  };
  return { ...body, tag: statusTag(body) };
}

function statusTag(body: ProjectionStatus): string {
  const { request } = body;
  return [body.sessionId, body.state, request?.state ?? '', String(request?.slot ?? ''), String(request?.position ?? ''), request?.by ?? '', body.touch === true ? 'touch' : ''].join('|');
}

/** Long-poll: how often the store is read while a presenter waits for a change, and the longest wait. */
const FOLLOW_POLL_MS = 500;
export const FOLLOW_MAX_WAIT_MS = 25_000;

function waitQuery(request: IncomingMessage): { since: string | undefined; waitMs: number } {
  const url = new URL(request.url ?? '/', 'http://x');
  const waitMs = Math.min(Math.max(Number(url.searchParams.get('waitMs') ?? '0') || 0, 0), FOLLOW_MAX_WAIT_MS);
  return { since: url.searchParams.get('since') ?? undefined, waitMs };
}

/** Presenter endpoints under /v1/displays; returns false when the path is not one of them. */
export async function handlePresenter(deps: PresenterApiDeps, request: IncomingMessage, response: ServerResponse, path: string): Promise<boolean> {
  const projection = PROJECTION_PATH.exec(path);
  const roomPath = ROOM_PATH.exec(path);
  const laserPath = deps.laser === undefined ? null : LASER_PATH.exec(path);
  if (path !== '/v1/displays' && !projection && !roomPath && !laserPath) return false;
  const address = deps.clientAddress(request);
  const source = sourceKey(address);
  const rate = deps.limiter.take(source);
  if (!rate.allowed) {
    refuse(response, 'rate-limited', undefined, { retryAfterMs: rate.retryAfterMs });
    return true;
  }
  const method = request.method ?? 'GET';
  if (roomPath) {
    await hostRequest(deps, request, response, roomPath[1] ?? '', address);
    return true;
  }
  if (laserPath && deps.laser) {
    await laserPoints(deps, deps.laser, request, response, laserPath[1] ?? '', method);
    return true;
  }
  if (!projection) {
    if (method !== 'GET' && method !== 'HEAD') {
      refuse(response, 'not-found', `no presenter endpoint ${method} ${path}`);
      return true;
    }
    json(response, 200, { displays: await deps.presenters.listDisplays() } satisfies DisplayListing);
    return true;
  }
  const displayId = projection[1] ?? '';
  const log = deps.logger.child({ displayId, source, channel: 'presenter' });
  switch (method) {
    case 'POST':
      await startProjection(deps, request, response, displayId, { source, address }, log);
      return true;
    case 'GET': {
      // `?since=<tag>&waitMs=N`: the answer waits (at most N ms, FOLLOW_MAX_WAIT_MS) until the status differs from the tag the page holds.
      const { since, waitMs } = waitQuery(request);
      const deadline = Date.now() + waitMs;
      const asker = { gone: false };
      request.once('close', () => { asker.gone = true; });
      for (;;) {
        const found = await deps.presenters.lookup(displayId, stopTokenOf(request));
        if (!found.ok) {
          refuse(response, found.code, found.reason);
          return true;
        }
        const now = status(found);
        if (since === undefined || now.tag !== since || Date.now() + FOLLOW_POLL_MS > deadline || asker.gone) {
          // An accepted browser source that waited gets its presenter socket here (after the tag: a fresh token is no change).
          const leg = await deps.presenters.presenterLeg(displayId, found);
          json(response, 200, leg === undefined ? now : {
            ...now,
            presenter: {
              socketUrl: deps.presenterSocketUrl(now.sessionId, request.headers.host), token: leg.token, expiresAt: leg.expiresAt,
              ...(leg.desktop === undefined ? {} : { desktop: leg.desktop }),
            },
          } satisfies ProjectionStatus);
          return true;
        }
        await new Promise((resolve) => setTimeout(resolve, FOLLOW_POLL_MS));
      }
    }
    case 'DELETE': {
      const forged = forgeryReason(request, deps.allowedOrigins, false);
      if (forged !== undefined) {
        refuse(response, 'bad-request', forged);
        return true;
      }
      const stopped = await deps.presenters.stop(displayId, stopTokenOf(request));
      if (!stopped.ok) {
        refuse(response, stopped.code, stopped.reason);
        return true;
      }
      log.info({ event: 'presenter-stop', sessionId: stopped.session?.sessionId, request: stopped.request?.requestId }, 'presenter stopped the projection');
      json(response, 202, status(stopped));
      return true;
    }
    case 'PATCH':
      await changeProjection(deps, request, response, displayId, address, log);
      return true;
    default:
      refuse(response, 'not-found', `no presenter endpoint ${method} ${path}`);
      return true;
  }
}

/** `GET …/projection/laser?after=SEQ&waitMs=N` with the stop token: where fingers touched the presenter's picture at the display (issue 30). */
async function laserPoints(deps: PresenterApiDeps, feed: LaserFeed, request: IncomingMessage, response: ServerResponse, displayId: string, method: string): Promise<void> {
  if (method !== 'GET') {
    refuse(response, 'not-found', `no presenter endpoint ${method} …/projection/laser`);
    return;
  }
  const found = await deps.presenters.lookup(displayId, stopTokenOf(request));
  if (!found.ok) {
    refuse(response, found.code, found.reason);
    return;
  }
  const sessionId = found.session?.sessionId;
  const url = new URL(request.url ?? '/', 'http://x');
  const after = Math.max(0, Math.trunc(Number(url.searchParams.get('after') ?? '0')) || 0);
  const { waitMs } = waitQuery(request);
  const gone = new AbortController();
  // the response's close: the request's fires as soon as its (empty) body was read, in Node 20
  response.once('close', () => gone.abort());
  const points = sessionId === undefined || found.session?.state === 'ended' ? { seq: 0, points: [] } : await feed.next(sessionId, after, waitMs, gone.signal);
  json(response, 200, points satisfies LaserPoints);
}

/** `PATCH …/projection` with the stop token: the presenter lets the display control the computer, or stops it (issue 30). */
async function changeProjection(deps: PresenterApiDeps, request: IncomingMessage, response: ServerResponse, displayId: string, address: string | undefined, log: Logger): Promise<void> {
  if (refusedAsForged(deps, request, response)) return;
  const change = await readBody<ProjectionChange>(request, response, projectionChangeSchema);
  if (change === undefined) return;
  const changed = await deps.presenters.setTouch(displayId, stopTokenOf(request), change.touch, { kind: 'presenter', ...(address === undefined ? {} : { address }) });
  if (!changed.ok) {
    refuse(response, changed.code, changed.reason);
    return;
  }
  log.info({ event: change.touch ? 'touch-allowed' : 'touch-revoked', sessionId: changed.session?.sessionId }, change.touch ? 'presenter let the display control the computer' : 'presenter revoked control from the display');
  json(response, 200, status(changed));
}

async function startProjection(deps: PresenterApiDeps, request: IncomingMessage, response: ServerResponse, displayId: string, from: { source: string; address: string | undefined }, log: Logger): Promise<void> {
  if (refusedAsForged(deps, request, response)) return;
  const body = await readBody<ProjectionRequestBody>(request, response, projectionRequestSchema);
  if (body === undefined) return;
  // A request that shows a token has it checked under the token-guess limits (else this would be an unthrottled admin-token oracle).
  let admin = false;
  if (request.headers.authorization !== undefined) {
    admin = bearerMatches(request, [deps.adminToken]);
    const verdict = await deps.guesses.check(from.address, 'presenter', admin);
    if (!verdict.allowed) {
      refuse(response, 'rate-limited', 'too many wrong tokens from this address', { retryAfterMs: verdict.retryAfterMs });
      return;
    }
  }
  const target = body.target ? { host: body.target.host, port: body.target.port ?? 3389 } : undefined;
  const outcome = await deps.presenters.request({
    displayId, target, credentials: body.credentials, assistance: body.assistance, settings: body.settings, pin: body.pin, source: from.source, admin,
    browser: body.source === 'browser', name: body.name, takeOver: body.takeOver, slot: body.slot,
    // the name the presenter gave also names its session (the admin's live sessions), not only its label
    requestedBy: { kind: admin ? 'admin' : 'presenter', ...(from.address === undefined ? {} : { address: from.address }), ...(body.name === undefined ? {} : { name: body.name }) },
  });
  if (!outcome.ok) {
    if (outcome.code === 'pin-locked') log.warn({ event: 'pin-locked', scope: outcome.scope, retryAfterMs: outcome.retryAfterMs }, 'room pin locked after too many wrong pins');
    else if (outcome.code === 'pin-wrong') log.info({ event: 'pin-wrong', attemptsLeft: outcome.attemptsLeft }, 'wrong room pin');
    else log.info({ event: 'presenter-refused', code: outcome.code, reason: outcome.reason }, 'presenter projection refused');
    refuse(response, outcome.code, outcome.reason, { retryAfterMs: outcome.retryAfterMs, attemptsLeft: outcome.attemptsLeft });
    return;
  }
  log.info({ event: 'presenter-projection', sessionId: outcome.sessionId, target: outcome.presenter ? 'browser' : outcome.target, admin }, 'presenter projection started');
  const where = { state: outcome.state, ...(outcome.slot === undefined ? {} : { slot: outcome.slot }), ...(outcome.position === undefined ? {} : { position: outcome.position }) };
  const started: ProjectionStarted = outcome.presenter
    ? {
      sessionId: outcome.sessionId, displayId, stopToken: outcome.stopToken, ...where,
      presenter: {
        socketUrl: deps.presenterSocketUrl(outcome.sessionId, request.headers.host), token: outcome.presenter.token, expiresAt: outcome.presenter.expiresAt,
        ...(outcome.presenter.desktop === undefined ? {} : { desktop: outcome.presenter.desktop }),
      },
    }
    : { sessionId: outcome.sessionId, displayId, stopToken: outcome.stopToken, target: outcome.target, ...where };
  json(response, 202, started);
}

/**
 * The room's host (the admin API named its request) moderates with its own
 * stop token: GET the room (slots, queue), POST an action (roomActionSchema).
 * Anyone else gets 403 `not-host` (or `stop-token-wrong`).
 */
async function hostRequest(deps: PresenterApiDeps, request: IncomingMessage, response: ServerResponse, displayId: string, address: string | undefined): Promise<void> {
  const method = request.method ?? 'GET';
  if (method !== 'GET' && method !== 'POST') {
    refuse(response, 'not-found', `no presenter endpoint ${method} /v1/displays/${displayId}/room`);
    return;
  }
  if (method === 'POST') {
    if (refusedAsForged(deps, request, response)) return;
  }
  const host = await deps.presenters.host(displayId, stopTokenOf(request));
  if (!host.ok) {
    refuse(response, host.code, host.reason);
    return;
  }
  if (method === 'GET') {
    json(response, 200, await deps.rooms.view(displayId));
    return;
  }
  const action = await readBody<RoomAction>(request, response, roomActionSchema);
  if (action === undefined) return;
  const by: Requester = { kind: 'host', ...(address === undefined ? {} : { address }), name: host.requestId };
  const { rooms } = deps;
  switch (action.action) {
    case 'accept': {
      const outcome = await rooms.accept(displayId, action.requestId, action.slot, by);
      if (!outcome.ok) refuse(response, outcome.code, outcome.reason);
      else json(response, 200, outcome.request);
      return;
    }
    case 'decline': {
      const outcome = await rooms.decline(displayId, action.requestId, action.reason, by);
      if (!outcome.ok) refuse(response, outcome.code, outcome.reason);
      else json(response, 200, outcome.request);
      return;
    }
    case 'end': {
      const outcome = await rooms.endSource(displayId, action.slot, by);
      if (!outcome.ok) refuse(response, outcome.code, outcome.reason);
      else json(response, 202, { stopping: outcome.sessionId });
      return;
    }
    case 'layout':
      await rooms.change(displayId, { layout: action.layout, large: action.large }, by);
      json(response, 200, await rooms.view(displayId));
      return;
  }
}
