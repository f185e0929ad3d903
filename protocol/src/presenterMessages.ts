// The presenter API's JSON (docs/presenter-api.md): what the presenter page,
// a CLI or any client sends to project onto a display, and what the gateway
// answers. The gateway reads requests with these schemas and the page reads
// the answers with them, so both sides agree on one shape.
import * as z from 'zod/mini';
import { MAX_ROOM_SLOTS, ROOM_LAYOUTS } from './roomLayout.js';
import { sessionSettingsSchema } from './sessionSettings.js';

/** Every write (POST, DELETE) carries this header: a cross-site form cannot, and a cross-site fetch would need a preflight the gateway never grants. */
export const PRESENTER_REQUEST_HEADER = 'x-lanterna-presenter';
/** The stop token returned when a projection starts; it stops (and reads the state of) that projection only. */
export const PRESENTER_STOP_TOKEN_HEADER = 'x-lanterna-stop-token';

/** What a display is doing, as far as presenters may know. */
export const DISPLAY_STATES = ['offline', 'idle', 'presenting'] as const;
export type DisplayState = (typeof DISPLAY_STATES)[number];

const listedDisplay = z.object({
  id: z.string(),
  name: z.string(),
  location: z.optional(z.string()),
  state: z.enum(DISPLAY_STATES),
});

/** `GET /v1/displays`: every display with its state; no tokens, PINs or presenters. */
export const displayListingSchema = z.object({ displays: z.array(listedDisplay) });
export type ListedDisplay = z.infer<typeof listedDisplay>;
export type DisplayListing = z.infer<typeof displayListingSchema>;

const bounded = (max: number) => z.string().check(z.maxLength(max));

/** Invitations Windows writes are 1–7 KB; the gateway's reader allows 12 KiB. */
export const MAX_PRESENTER_INVITATION_CHARS = 12 * 1024;

/**
 * `POST /v1/displays/{id}/projection`: the presenter's computer (a target or a
 * Remote Assistance invitation, not both) and the room PIN. Unknown keys are
 * refused, so a typo in a client does not silently project without a setting.
 */
export const projectionRequestSchema = z.strictObject({
  /** The PIN on the display's idle screen; an administrator's Bearer token stands in for it. */
  pin: z.optional(bounded(32)),
  target: z.optional(z.strictObject({
    host: z.string().check(z.minLength(1), z.maxLength(253)),
    port: z.optional(z.int().check(z.minimum(1), z.maximum(65_535))),
  })),
  credentials: z.optional(z.strictObject({
    username: z.string().check(z.minLength(1), z.maxLength(256)),
    password: bounded(256),
    domain: z.optional(bounded(256)),
  })),
  assistance: z.optional(z.strictObject({
    invitation: z.string().check(z.minLength(1), z.maxLength(MAX_PRESENTER_INVITATION_CHARS)),
    password: bounded(256),
  })),
  settings: z.optional(sessionSettingsSchema),
  /**
   * `browser`: the presenter page itself is the RDP server (docs/browser-presenter.md):
   * no target, no credentials; the answer carries the presenter socket's token.
   */
  source: z.optional(z.literal('browser')),
  /** The name label the display shows over this source (several sources share a display: issue 29). */
  name: z.optional(z.string().check(z.minLength(1), z.maxLength(100))),
  /**
   * Open room, every slot taken: replace a source — the one in `slot`, else
   * the one on screen longest (never the room's host). Without it a full
   * room answers `display-busy`. In a moderated room it is a wish the
   * moderator sees.
   */
  takeOver: z.optional(z.boolean()),
  slot: z.optional(z.int().check(z.minimum(0), z.maximum(MAX_ROOM_SLOTS - 1))),
}).check(
  z.refine((body) => [body.target, body.assistance, body.source].filter((given) => given !== undefined).length === 1, 'give one of target, assistance or source'),
  z.refine((body) => body.source === undefined || body.credentials === undefined, 'a browser source takes no credentials'),
);
export type ProjectionRequestBody = z.infer<typeof projectionRequestSchema>;

/**
 * `POST /v1/displays/{id}/room` with the host's stop token: the room's host
 * moderates (issue 29) — accept a waiting request (into `slot`, replacing the
 * source there, else the lowest free one), decline one, end the source in a
 * slot, or pick the layout and the large slot.
 */
export const roomActionSchema = z.discriminatedUnion('action', [
  z.strictObject({ action: z.literal('accept'), requestId: bounded(128), slot: z.optional(z.int().check(z.minimum(0), z.maximum(MAX_ROOM_SLOTS - 1))) }),
  z.strictObject({ action: z.literal('decline'), requestId: bounded(128), reason: z.optional(bounded(200)) }),
  z.strictObject({ action: z.literal('end'), slot: z.int().check(z.minimum(0), z.maximum(MAX_ROOM_SLOTS - 1)) }),
  z.strictObject({ action: z.literal('layout'), layout: z.optional(z.enum(ROOM_LAYOUTS)), large: z.optional(z.int().check(z.minimum(0), z.maximum(MAX_ROOM_SLOTS - 1))) }),
]);
export type RoomAction = z.infer<typeof roomActionSchema>;

/**
 * `PATCH /v1/displays/{id}/projection` with the stop token: the presenter's
 * permission for people at the display to control the computer (issue 30),
 * off by default, taking effect at once either way. Only for a projection of
 * a computer (an RDP server or an invitation): a browser cannot be controlled.
 */
export const projectionChangeSchema = z.strictObject({ touch: z.boolean() });
export type ProjectionChange = z.infer<typeof projectionChangeSchema>;

/**
 * `GET /v1/displays/{id}/projection/laser?after=SEQ&waitMs=N` with the stop
 * token (issue 30): where fingers touched the presenter's picture at the
 * display since `after`, as fractions of the picture, newest last (at most
 * LASER_POINTS_KEPT); the answer waits up to N ms (≤ 25 s) for a new one.
 * Pass `seq` back as `after`.
 */
export const LASER_POINTS_KEPT = 64;
export const laserPointsSchema = z.object({
  seq: z.int(),
  points: z.array(z.object({ x: z.number(), y: z.number(), down: z.boolean(), at: z.number() })),
});
export type LaserPoints = z.infer<typeof laserPointsSchema>;

/**
 * A browser source's way in: the presenter socket's URL and the single-use
 * token its `present` message shows (docs/kiosk-protocol.md "Presenter socket").
 */
export const presenterSocketSchema = z.object({
  socketUrl: z.string(), token: z.string(), expiresAt: z.number(),
  /**
   * The desktop the display shows this source at (its panel, or its slot of
   * the panel, when the display has reported one): the page captures and
   * encodes no larger. Absent: the display has not said.
   */
  desktop: z.optional(z.object({ width: z.int(), height: z.int() })),
});
export type PresenterSocket = z.infer<typeof presenterSocketSchema>;

/** 202 to a projection request: the session, and the token that stops it. */
export const projectionStartedSchema = z.object({
  /** The session's id; while the request waits, the id its session will have once accepted. */
  sessionId: z.string(),
  displayId: z.string(),
  stopToken: z.string(),
  /** on-screen: the session holds `slot`; waiting: the moderator's queue holds the request at `position`. Absent from older gateways: on-screen. */
  state: z.optional(z.enum(['on-screen', 'waiting'])),
  slot: z.optional(z.int()),
  position: z.optional(z.int()),
  /** The computer the gateway connects to; absent for a browser source. */
  target: z.optional(z.object({ host: z.string(), port: z.number() })),
  /**
   * For a browser source: the presenter socket's URL and the single-use token
   * its `present` message shows (docs/kiosk-protocol.md "Presenter socket").
   */
  presenter: z.optional(presenterSocketSchema),
});
export type ProjectionStarted = z.infer<typeof projectionStartedSchema>;

/** `GET /v1/displays/{id}/projection` with the stop token: how the projection goes. */
export const projectionStatusSchema = z.object({
  sessionId: z.string(),
  /** minted: the display was told; claimed: it is connecting; active: it shows the presenter; ended; waiting: the moderator has not answered yet. */
  state: z.enum(['minted', 'claimed', 'active', 'ended', 'waiting']),
  /** When ended: `stopped`, `server-closed`, `client-closed`, `expired`, `gateway-shutdown`, or a session error code. */
  endReason: z.optional(z.string()),
  /** Where the request stands in the room (issue 29). */
  request: z.optional(z.object({
    requestId: z.string(),
    state: z.enum(['waiting', 'on-screen', 'declined', 'ended', 'withdrawn']),
    /** While on screen: the slot (0-based). */
    slot: z.optional(z.int()),
    /** While waiting: the place in the queue (1 is next). */
    position: z.optional(z.int()),
    /** Who decided: `admin@ADDRESS`, `presenter@ADDRESS` (the room's host), `presenter`, `gateway`. */
    by: z.optional(z.string()),
    /** What happened, in words. */
    reason: z.optional(z.string()),
  })),
  /** Whether people at the display may control the computer now (issue 30); absent from older gateways: no. */
  touch: z.optional(z.boolean()),
  /** Changes whenever anything above does: pass it back as `since` to wait for the next change. */
  tag: z._default(z.string(), ''),
  /**
   * A browser source that waited in a moderated room, once accepted and until
   * its page's socket joins (state minted or claimed): the presenter socket to
   * open, its token fresh with each answer (it is not part of `tag`).
   */
  presenter: z.optional(presenterSocketSchema),
});
export type ProjectionStatus = z.infer<typeof projectionStatusSchema>;

/** Every refusal: a code of PRESENTER_ERROR_CODES (or a newer one), the gateway's words, and for lockouts when to try again. */
export const presenterRefusalSchema = z.object({
  code: z.string(),
  message: z._default(z.string(), ''),
  /** With `pin-locked` and `rate-limited` (also in the Retry-After header). */
  retryAfterSeconds: z.optional(z.number()),
  /** With `pin-wrong`: wrong PINs this requester may still try before a lockout. */
  attemptsLeft: z.optional(z.number()),
});
export type PresenterRefusal = z.infer<typeof presenterRefusalSchema>;
