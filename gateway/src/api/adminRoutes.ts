// Every admin endpoint, once: method, path, words, the zod schemas of its
// body and query, and its handler. The router (adminApi.ts) dispatches from
// this table and the OpenAPI document (openApiDocument.ts) is generated from
// it, so the two cannot drift apart; the body a handler sees has passed the
// same schema the document shows.
import { z } from 'zod';
import { targetSchema } from '../config/configSchema.js';
import { DESKTOP_MAX_LONG_SIDE, DESKTOP_MIN_SIDE, DESKTOP_SCALE_MAX, DESKTOP_SCALE_MIN, sessionSettingsSchema } from '@lanterna/protocol';
import { MAX_INVITATION_CHARS } from '../assistance/raInvitation.js';
import type { AuditLog } from '../broker/auditLog.js';
import type { DisplayChange, DisplayRegistry } from '../broker/displayRegistry.js';
import type { PinConflicts } from '../broker/pinConflicts.js';
import type { ProjectionDesk, ProjectionRefusal } from '../broker/projectionDesk.js';
import { SESSION_LEASE_MS, type SessionLifecycle } from '../broker/sessionLifecycle.js';
import type { Requester, SessionRecord } from '../broker/brokerStore.js';
import type { PinStore } from '../policy/pinStore.js';
import { canonicalPinKey } from '../policy/pinKey.js';
import { MAX_ROOM_SLOTS, ROOM_LAYOUTS, ROOM_MODES } from '@lanterna/protocol';
import type { PublicRequest, RoomRefusal, RoomRequests } from '../broker/roomRequests.js';

export const roomChangeBody = z.object({
  mode: z.enum(ROOM_MODES).optional().describe('open: anyone with the room PIN joins a free slot (or takes one over when asking so); moderated: requests wait for the moderator'),
  layout: z.enum(ROOM_LAYOUTS).optional(),
  large: z.number().int().min(0).max(MAX_ROOM_SLOTS - 1).optional().describe('the slot `full` shows and `one-large` enlarges'),
  host: z.string().min(1).max(128).nullable().optional().describe("a presenter's request id (its projection's sessionId) made the room's host, who may moderate with its stop token; null: none"),
}).strict();
export const acceptBody = z.object({
  slot: z.number().int().min(0).max(MAX_ROOM_SLOTS - 1).optional().describe('the slot to put it in, replacing the source there; absent: the lowest free slot'),
}).strict();
export const declineBody = z.object({ reason: z.string().trim().max(200).optional() }).strict();

const roomStatus = { 'no-request': 404, 'not-waiting': 409, 'room-full': 409, 'bad-slot': 400, 'not-host': 403 } as const;

function roomRefused(refusal: RoomRefusal): RouteAnswer {
  return { status: roomStatus[refusal.code], body: { code: refusal.code, message: refusal.reason } };
}

const noRooms: RouteAnswer = { status: 404, body: { code: 'not-found', message: 'this gateway keeps no rooms' } };

/** The 404 for a display this gateway does not know; undefined when it knows it. */
async function unknownDisplay(deps: AdminDeps, displayId: string): Promise<RouteAnswer | undefined> {
  if ((await deps.displays.listDisplays()).some((display) => display.id === displayId)) return undefined;
  return { status: 404, body: { code: 'unknown-display', message: `no display "${displayId}"` } };
}

/** The moderator's word on a waiting request (accept, decline): the request as it is now, or why not. */
async function decideRoomRequest(
  deps: AdminDeps,
  params: Record<string, string>,
  decide: (rooms: RoomRequests, displayId: string, requestId: string) => Promise<{ ok: true; request: PublicRequest } | RoomRefusal>,
): Promise<RouteAnswer> {
  if (!deps.rooms) return noRooms;
  const outcome = await decide(deps.rooms, params.displayId ?? '', params.requestId ?? '');
  return outcome.ok ? { status: 200, body: outcome.request } : roomRefused(outcome);
}

export interface AdminDeps {
  adminToken: string;
  displays: DisplayRegistry;
  projections: Pick<ProjectionDesk, 'requestProjection'>;
  sessions: Pick<SessionLifecycle, 'listSessions' | 'endSession' | 'stopSession'>;
  auditLog: Pick<AuditLog, 'list'>;
  /** Certificates that changed since their pin (the pins themselves are `pins`'). */
  pinConflicts: Pick<PinConflicts, 'list' | 'cleared'>;
  /** The rooms' slots, queue and moderation (issue 29); without it the room endpoints answer 404. */
  rooms?: RoomRequests | undefined;
  pins: PinStore;
  clock?: () => number;
}

export interface RouteContext<B, Q> {
  params: Record<string, string>;
  body: B;
  query: Q;
  requester: Requester;
  deps: AdminDeps;
}

export interface RouteAnswer { status: number; body?: unknown }

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

type Output<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface AdminRoute {
  method: HttpMethod;
  /** OpenAPI path template, `{name}` for a path parameter. */
  path: string;
  operationId: string;
  summary: string;
  body?: z.ZodType | undefined;
  query?: z.ZodObject | undefined;
  /** Status → what it means; the error answers share one schema. */
  responses: Record<number, string>;
  handle(context: RouteContext<unknown, unknown>): Promise<RouteAnswer>;
}

function route<B extends z.ZodType | undefined = undefined, Q extends z.ZodObject | undefined = undefined>(definition: {
  method: HttpMethod; path: string; operationId: string; summary: string; body?: B; query?: Q;
  responses: Record<number, string>;
  handle(context: RouteContext<Output<B>, Output<Q>>): Promise<RouteAnswer>;
}): AdminRoute {
  return definition;
}

export const displayIdSchema = z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'display id: 1-64 of A-Z a-z 0-9 . _ -');

/** A display's desktop (docs/kiosk-protocol.md "The panel and the desktop"): each part absent comes from the panel. */
const desktopBody = z.object({
  width: z.number().int().min(DESKTOP_MIN_SIDE).max(DESKTOP_MAX_LONG_SIDE).optional(),
  height: z.number().int().min(DESKTOP_MIN_SIDE).max(DESKTOP_MAX_LONG_SIDE).optional(),
  scale: z.number().int().min(DESKTOP_SCALE_MIN).max(DESKTOP_SCALE_MAX).optional().describe('desktop scale factor in percent; absent: by size (200 at 3840×2160)'),
}).strict().refine((d) => (d.width === undefined) === (d.height === undefined), 'give width and height together')
  .describe("what an admin fixes of the display's desktop");

export const createDisplayBody = z.object({
  id: displayIdSchema.optional().describe('made from the name when absent'),
  name: z.string().trim().min(1).max(100),
  location: z.string().trim().max(200).optional(),
  desktop: desktopBody.optional(),
}).strict();

export const updateDisplayBody = z.object({
  name: z.string().trim().min(1).max(100).optional(),
  location: z.string().trim().max(200).optional(),
  desktop: desktopBody.nullable().optional().describe('null: the desktop comes from the panel again'),
}).strict().refine((body) => body.name !== undefined || body.location !== undefined || body.desktop !== undefined, 'give a name, a location, a desktop or several');

export const displaySoundBody = z.object({
  volume: z.number().int().min(0).max(100).optional().describe('0–100 %'),
  muted: z.boolean().optional(),
}).strict().refine((body) => body.volume !== undefined || body.muted !== undefined, 'give a volume, muted or both');

export const projectBody = z.object({
  displayId: z.string(),
  target: targetSchema.optional(),
  credentials: z.object({ username: z.string().min(1), password: z.string(), domain: z.string().optional() }).optional(),
  /** A Remote Assistance invitation instead of a target: the gateway picks the first address its policy allows. */
  assistance: z.object({ invitation: z.string().min(1).max(MAX_INVITATION_CHARS), password: z.string().max(256) }).optional(),
  settings: z.optional(sessionSettingsSchema),
}).refine((body) => (body.target === undefined) !== (body.assistance === undefined), 'give either target or assistance, not both');

export const sessionsQuery = z.object({ state: z.enum(['live', 'all']).default('all') });
export const auditQuery = z.object({
  before: z.coerce.number().int().positive().optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

const refusalStatus: Record<ProjectionRefusal, number> = {
  'unknown-display': 404,
  'target-forbidden': 403,
  'display-offline': 409,
  'display-busy': 409,
  'invitation-too-large': 400,
  'invitation-markup': 400,
  'invitation-malformed': 400,
  'invitation-password': 400,
};

const changeStatus = { 'unknown-display': 404, 'display-exists': 409, 'config-managed': 409 } as const;

function changeAnswer<T>(change: DisplayChange<T>, status: number, body: (value: T) => unknown): RouteAnswer {
  if (!change.ok) return { status: changeStatus[change.code], body: { code: change.code, message: change.reason } };
  return { status, body: body(change.value) };
}

/** A display's report older than this says nothing about now (a display reports once a second). */
export const SHOWN_FRESH_MS = 5000;

/**
 * The display's newest report with its rates: the frames it showed per second
 * (presents that brought new pixels, from displays that count them), all its
 * presents per second, and the messages and bytes it received.
 */
function shownView(shown: SessionRecord['shown'], now: number) {
  if (!shown || now - shown.reportedAt > SHOWN_FRESH_MS) return undefined;
  const perSecond = (count: number): number => Math.round((count * 1000) / shown.intervalMs * 10) / 10;
  return {
    ...shown,
    ...(shown.frames === undefined ? {} : { framesPerSecond: perSecond(shown.frames) }),
    presentsPerSecond: perSecond(shown.presents), messagesPerSecond: perSecond(shown.messages), bytesPerSecond: Math.round((shown.bytes * 1000) / shown.intervalMs),
  };
}

/** The relay's figures; its WebSocket messages under their own name too (`framesToDisplay` and `framesPerSecond` count messages, not pictures, and stay for older clients). */
function statsView(stats: SessionRecord['stats']) {
  return stats && { ...stats, messagesToDisplay: stats.framesToDisplay, messagesPerSecond: stats.framesPerSecond };
}

/** A session as the admin sees it: the record, whether it is live, how long it has run, who presents, what its display reports. */
export function sessionView(record: SessionRecord, now: number) {
  const expired = record.state === 'minted' && record.expiresAt < now;
  const lost = record.state !== 'ended' && record.state !== 'minted' && record.stats !== undefined && now - record.stats.sampledAt > SESSION_LEASE_MS;
  const state = expired ? 'ended' : record.state;
  return {
    ...record,
    state,
    ...(expired ? { endedAt: record.expiresAt, endReason: 'expired' } : {}),
    live: state !== 'ended' && !lost,
    lost,
    durationMs: record.securedAt === undefined ? undefined : (record.endedAt ?? now) - record.securedAt,
    presenter: record.requestedBy?.name ?? record.target.name ?? `${record.target.host}:${record.target.port}`,
    stats: statsView(record.stats),
    shown: state === 'ended' ? undefined : shownView(record.shown, now),
  };
}

const now = (deps: AdminDeps): number => (deps.clock ?? Date.now)();

export const adminRoutes: AdminRoute[] = [
  route({
    method: 'GET', path: '/v1/admin/displays', operationId: 'listDisplays',
    summary: 'Displays with their online state and the session each is booked for',
    responses: { 200: 'the displays' },
    handle: async ({ deps }) => ({ status: 200, body: { displays: await deps.displays.listDisplays() } }),
  }),
  route({
    method: 'POST', path: '/v1/admin/displays', operationId: 'createDisplay',
    summary: 'Creates a display; its token is in this answer only',
    body: createDisplayBody,
    responses: { 201: 'created, with its token (shown once)', 409: 'the id is taken' },
    handle: async ({ deps, body, requester }) => changeAnswer(
      await deps.displays.createDisplay(body, requester), 201,
      ({ display, token }) => ({ display: { id: display.id, name: display.name, location: display.location, managedBy: display.managedBy, desktop: display.desktop }, token }),
    ),
  }),
  route({
    method: 'PATCH', path: '/v1/admin/displays/{displayId}', operationId: 'updateDisplay',
    summary: 'Renames, moves (location) and/or fixes the desktop (size, scale) of a display made through the API',
    body: updateDisplayBody,
    responses: { 200: 'changed', 404: 'no such display', 409: 'the display is managed by the configuration file' },
    handle: async ({ deps, body, params, requester }) => changeAnswer(
      await deps.displays.updateDisplay(params.displayId ?? '', body, requester), 200,
      (display) => ({ display: { id: display.id, name: display.name, location: display.location, managedBy: display.managedBy, desktop: display.desktop } }),
    ),
  }),
  route({
    method: 'PATCH', path: '/v1/admin/displays/{displayId}/sound', operationId: 'setDisplaySound',
    summary: "Sets a display's volume (0–100 %) and/or mute, for any display; kept through the broker (every gateway agrees) and applied on the display at once",
    body: displaySoundBody,
    responses: { 200: 'the volume and mute now', 404: 'no such display' },
    handle: async ({ deps, body, params, requester }) => changeAnswer(
      await deps.displays.setDisplaySound(params.displayId ?? '', body, requester), 200, (sound) => ({ sound }),
    ),
  }),
  route({
    method: 'DELETE', path: '/v1/admin/displays/{displayId}', operationId: 'deleteDisplay',
    summary: 'Deletes a display made through the API; its socket is closed and its session stopped',
    responses: { 200: 'deleted', 404: 'no such display', 409: 'the display is managed by the configuration file' },
    handle: async ({ deps, params, requester }) => changeAnswer(await deps.displays.deleteDisplay(params.displayId ?? '', requester), 200, () => ({ deleted: true })),
  }),
  route({
    method: 'POST', path: '/v1/admin/displays/{displayId}/token', operationId: 'rotateDisplayToken',
    summary: 'Gives a display a new token (shown once); the old one stops working at once',
    responses: { 200: 'the new token', 404: 'no such display', 409: 'the display is managed by the configuration file' },
    handle: async ({ deps, params, requester }) => changeAnswer(await deps.displays.rotateDisplayToken(params.displayId ?? '', requester), 200, ({ token }) => ({ token })),
  }),
  route({
    method: 'DELETE', path: '/v1/admin/displays/{displayId}/sessions/{sessionId}', operationId: 'stopDisplaySession',
    summary: "Stops a display's session (kept for older clients; see DELETE /v1/admin/sessions/{sessionId})",
    responses: { 202: 'the stop was sent' },
    handle: async ({ deps, params, requester }) => {
      const displayId = params.displayId ?? '';
      const sessionId = params.sessionId ?? '';
      // As DELETE /v1/admin/sessions/{sessionId}: its presenter is told an administrator ended it, whichever
      // end the relay saw first (the display may close its data socket before the stop reaches the relay)
      if (!await deps.sessions.endSession(sessionId, requester, displayId)) deps.sessions.stopSession(displayId, sessionId, 'stopped by an administrator');
      return { status: 202, body: { stopping: true } };
    },
  }),
  route({
    method: 'GET', path: '/v1/admin/sessions', operationId: 'listSessions',
    summary: 'Sessions with timings and live figures: the relay\'s bytes and WebSocket messages per second (`stats.messagesPerSecond`; `framesPerSecond` is the same count under its old name, messages not pictures; sampled once a second), and what the display reports (`shown`): the frames it showed per second (`framesPerSecond`, presents that brought new pixels) and all its presents per second (`presentsPerSecond`)',
    query: sessionsQuery,
    responses: { 200: 'the sessions, newest last' },
    handle: async ({ deps, query }) => {
      const at = now(deps);
      const sessions = (await deps.sessions.listSessions()).map((record) => sessionView(record, at));
      return { status: 200, body: { sessions: query.state === 'live' ? sessions.filter((session) => session.live) : sessions } };
    },
  }),
  route({
    method: 'POST', path: '/v1/admin/sessions', operationId: 'project',
    summary: 'Projects a presenter onto a display (a target, or a Remote Assistance invitation)',
    body: projectBody,
    responses: { 202: 'minted; the display was told', 400: 'a bad invitation', 403: 'the target is not allowed', 404: 'no such display', 409: 'the display is busy' },
    handle: async ({ deps, body, requester }) => {
      const outcome = await deps.projections.requestProjection(body, requester);
      if (!outcome.ok) return { status: refusalStatus[outcome.code], body: { code: outcome.code, message: outcome.reason } };
      return { status: 202, body: { sessionId: outcome.sessionId, displayId: body.displayId, target: outcome.target } };
    },
  }),
  route({
    method: 'DELETE', path: '/v1/admin/sessions/{sessionId}', operationId: 'endSession',
    summary: 'Ends a session, whichever gateway relays it',
    responses: { 202: 'the stop was sent', 404: 'no such live session' },
    handle: async ({ deps, params, requester }) => {
      const sessionId = params.sessionId ?? '';
      if (!await deps.sessions.endSession(sessionId, requester)) return { status: 404, body: { code: 'unknown-session', message: `no live session "${sessionId}"` } };
      return { status: 202, body: { stopping: true } };
    },
  }),
  route({
    method: 'GET', path: '/v1/admin/pins', operationId: 'listPins',
    summary: 'Certificate pins (trust on first use): `lastUsedAt` when a session last went through with the pin (ms since the epoch, noted at most once a minute), `changed` when a server has since shown another certificate',
    responses: { 200: 'the pins' },
    handle: async ({ deps }) => {
      const [pins, conflicts, used] = await Promise.all([deps.pins.list(), deps.pinConflicts.list(), deps.pins.lastUsed().catch(() => new Map<string, number>())]);
      const changed = new Map(conflicts.map((conflict) => [conflict.key, conflict]));
      const body = [...pins].sort(([a], [b]) => a.localeCompare(b)).map(([key, fingerprint]) => {
        const conflict = changed.get(key);
        const lastUsedAt = used.get(key);
        return {
          key, fingerprint,
          ...(lastUsedAt === undefined ? {} : { lastUsedAt }),
          ...(conflict && conflict.pinned === fingerprint ? { changed: { seen: conflict.seen, at: conflict.at } } : {}),
        };
      });
      return { status: 200, body: { pins: body } };
    },
  }),
  route({
    method: 'DELETE', path: '/v1/admin/pins/{key}', operationId: 'clearPin',
    summary: "Forgets a server's pin (host:port): its next session pins the certificate it shows then",
    responses: { 200: 'cleared', 400: 'not a host:port key', 404: 'no pin under that key' },
    handle: async ({ deps, params, requester }) => {
      const key = canonicalPinKey(params.key ?? '');
      if (!key) return { status: 400, body: { code: 'bad-request', message: `"${params.key ?? ''}" is not host:port` } };
      const cleared = await deps.pins.clear([key]);
      if (cleared === 0) return { status: 404, body: { code: 'unknown-pin', message: `no pin for ${key}` } };
      await deps.pinConflicts.cleared(key, requester);
      return { status: 200, body: { cleared: key } };
    },
  }),
  route({
    method: 'GET', path: '/v1/admin/displays/{displayId}/room', operationId: 'getRoom',
    summary: "A display's room: mode, layout, large slot, host, how many sources its page shows at once, each slot's source (label, request, rectangle on the panel) and the queue of waiting requests",
    responses: { 200: 'the room', 404: 'no such display' },
    handle: async ({ deps, params }) => {
      if (!deps.rooms) return noRooms;
      const displayId = params.displayId ?? '';
      const unknown = await unknownDisplay(deps, displayId);
      if (unknown) return unknown;
      return { status: 200, body: await deps.rooms.view(displayId) };
    },
  }),
  route({
    method: 'PATCH', path: '/v1/admin/displays/{displayId}/room', operationId: 'changeRoom',
    summary: "Changes a display's room: moderation mode, layout, the large slot, the host (each change audited)",
    body: roomChangeBody,
    responses: { 200: 'the room now', 404: 'no such display' },
    handle: async ({ deps, params, body, requester }) => {
      if (!deps.rooms) return noRooms;
      const displayId = params.displayId ?? '';
      const unknown = await unknownDisplay(deps, displayId);
      if (unknown) return unknown;
      await deps.rooms.change(displayId, { mode: body.mode, layout: body.layout, large: body.large, hostRequestId: body.host }, requester);
      return { status: 200, body: await deps.rooms.view(displayId) };
    },
  }),
  route({
    method: 'POST', path: '/v1/admin/displays/{displayId}/room/requests/{requestId}/accept', operationId: 'acceptRoomRequest',
    summary: 'Lets a waiting request on screen: into the named slot (replacing the source there), else the lowest free slot',
    body: acceptBody,
    responses: { 200: 'on screen', 400: 'no such slot', 404: 'no such request', 409: 'not waiting any more, or every slot taken' },
    handle: ({ deps, params, body, requester }) => decideRoomRequest(deps, params, (rooms, displayId, requestId) => rooms.accept(displayId, requestId, body.slot, requester)),
  }),
  route({
    method: 'POST', path: '/v1/admin/displays/{displayId}/room/requests/{requestId}/decline', operationId: 'declineRoomRequest',
    summary: "Says no to a waiting request (its presenter's page shows the reason)",
    body: declineBody,
    responses: { 200: 'declined', 404: 'no such request', 409: 'not waiting any more' },
    handle: ({ deps, params, body, requester }) => decideRoomRequest(deps, params, (rooms, displayId, requestId) => rooms.decline(displayId, requestId, body.reason, requester)),
  }),
  route({
    method: 'DELETE', path: '/v1/admin/displays/{displayId}/room/slots/{slot}', operationId: 'endRoomSource',
    summary: "Ends the source in a slot, wherever it relays; its presenter's page says by whom",
    responses: { 202: 'the stop was sent', 400: 'the slot shows nothing' },
    handle: async ({ deps, params, requester }) => {
      if (!deps.rooms) return noRooms;
      const slot = Number(params.slot);
      if (!Number.isInteger(slot) || slot < 0 || slot >= MAX_ROOM_SLOTS) return { status: 400, body: { code: 'bad-slot', message: `no slot "${params.slot ?? ''}"` } };
      const outcome = await deps.rooms.endSource(params.displayId ?? '', slot, requester);
      return outcome.ok ? { status: 202, body: { stopping: outcome.sessionId } } : roomRefused(outcome);
    },
  }),
  route({
    method: 'GET', path: '/v1/admin/audit', operationId: 'listAudit',
    summary: 'The audit log, newest first, a page at a time (`before`: the `next` of the previous page)',
    query: auditQuery,
    responses: { 200: 'a page of entries' },
    handle: async ({ deps, query }) => ({ status: 200, body: await deps.auditLog.list(query) }),
  }),
];
