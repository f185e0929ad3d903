// The broker's state, behind the one interface every deployment implements:
// in memory for one process (memoryBrokerStore.ts), persisted to a state file
// (embeddedBrokerStore.ts, the default), through the cluster primary for
// several workers (../cluster/ipcBrokerStore.ts), and in Redis for several
// gateways (../redis/redisBrokerStore.ts). Every operation is asynchronous and
// carries plain JSON data, so any of them can sit across a process or network
// boundary. Decisions live in the broker, not here: a store only keeps records
// and makes the one check that must be atomic (the first claim of a session).
import type { RoomLayout, RoomMode } from '@lanterna/protocol';
import type { DesktopPreference, Panel } from '@lanterna/protocol';
import type { ReprojectionState } from './reprojectBackoff.js';

export type { ReprojectionState } from './reprojectBackoff.js';

/** minted: token handed to the display; claimed: its data socket opened; active: relaying; ended. */
export type SessionState = 'minted' | 'claimed' | 'active' | 'ended';

export interface SessionRecord {
  readonly sessionId: string;
  readonly displayId: string;
  readonly target: { readonly host: string; readonly port: number; readonly name?: string | undefined };
  readonly state: SessionState;
  /** Times in ms since the epoch. */
  readonly mintedAt: number;
  /** When the session's token stops opening it. */
  readonly expiresAt: number;
  readonly claimedAt?: number | undefined;
  readonly securedAt?: number | undefined;
  readonly endedAt?: number | undefined;
  /** `server-closed`, `client-closed`, `stopped`, `gateway-shutdown`, `expired`, `gateway-lost`, or the error code. */
  readonly endReason?: string | undefined;
  /** Who asked for the projection (admin API, presenter, signage, a resume). */
  readonly requestedBy?: Requester | undefined;
  /** The relay's figures, sampled once a second by the gateway relaying it. */
  readonly stats?: SessionStats | undefined;
  /** The display's own newest report of what it showed (its control socket's `figures`). */
  readonly shown?: DisplayFigures | undefined;
  /** The slot of its display the session shows in (absent: 0). */
  readonly slot?: number | undefined;
  /** The presenter's request it came from (roomRequests.ts), when it came from one. */
  readonly requestId?: string | undefined;
  /** The presenter lets people at the display control the computer (issue 30); absent: not (the default). */
  readonly touch?: boolean | undefined;
}

/** What the display reported it did with the session over `intervalMs` (docs/kiosk-protocol.md, `figures`). */
export interface DisplayFigures {
  readonly intervalMs: number;
  /** Draws that reached the screen (a pointer move is one too). */
  readonly presents: number;
  /** Of those, the ones that brought new pixels from the session: what a viewer calls frames (absent: a display too old to count them). */
  readonly frames?: number | undefined;
  /** Binary messages and bytes its data socket brought. */
  readonly messages: number;
  readonly bytes: number;
  /** Its sound over the interval (displays that play sound): whether any played, the output's state, the ms its queue and output add. */
  readonly sound?: { readonly playing: boolean; readonly state: string; readonly delayMs: number } | undefined;
  /** When the gateway received the report (ms since the epoch). */
  readonly reportedAt: number;
}

export interface Requester {
  readonly kind: 'admin' | 'presenter' | 'signage' | 'resume' | 'wsd' | 'host';
  /** The requester's network address, when it came over the network. */
  readonly address?: string | undefined;
  /** A name the requester gave (a presenter's name, a computer's name). */
  readonly name?: string | undefined;
}

/** Cumulative counters since the session was secured, and rates over the last sample interval. */
export interface SessionStats {
  readonly bytesToDisplay: number;
  readonly bytesToServer: number;
  readonly pdusToDisplay: number;
  /** WebSocket messages to the display (each holds one or more whole PDUs), not pictures: see SessionRecord.shown. */
  readonly framesToDisplay: number;
  readonly bytesPerSecond: number;
  readonly framesPerSecond: number;
  /** When the relaying gateway last sampled it (ms since the epoch): a session not sampled for a while is lost. */
  readonly sampledAt: number;
}

export interface SessionSample extends SessionStats {
  readonly sessionId: string;
  readonly displayId: string;
}

/** A display as the store keeps it: its token only as a SHA-256 digest. */
export interface DisplayRecord {
  readonly id: string;
  readonly name: string;
  readonly location?: string | undefined;
  /** What an admin (or the configuration file) fixed of the display's desktop; absent: all from the panel. */
  readonly desktop?: DesktopPreference | undefined;
  /** The display's newest `panel` report (docs/kiosk-protocol.md) and when it came (ms since the epoch). */
  readonly panel?: (Panel & { readonly at: number }) | undefined;
  /** Hex SHA-256 of the display's token (tokens are shown once, when made, and never stored). */
  readonly tokenDigest: string;
  /** `config`: seeded from the configuration file at start, changed only there; `api`: made through the admin API. */
  readonly managedBy: 'config' | 'api';
  /** Volume (0–100 %) and mute an administrator set; absent: full volume, not muted. Kept across config seeding. */
  readonly sound?: DisplaySound | undefined;
  readonly createdAt: number;
  readonly updatedAt: number;
}

export interface DisplaySound {
  readonly volume: number;
  readonly muted: boolean;
}

export const DEFAULT_DISPLAY_SOUND: DisplaySound = { volume: 100, muted: false };

/**
 * The session one slot of a display is showing (or about to); a booked slot
 * refuses a second session. A display has MAX_ROOM_SLOTS slots; one whose
 * page shows one source at a time uses slot 0 only.
 */
export interface DisplayBooking {
  readonly displayId: string;
  readonly sessionId: string;
  /** Absent: 0. */
  readonly slot?: number | undefined;
  /** The booking lapses then unless renewed (the relay renews it while the session lives). */
  readonly until: number;
}

export type BookingResult = { readonly ok: true } | { readonly ok: false; readonly holder: DisplayBooking };

/** bookFreeSlot: the slot taken, or every slot's holder. */
export type SlotBookingResult = { readonly ok: true; readonly slot: number } | { readonly ok: false; readonly holders: DisplayBooking[] };

/** A room's settings (issue 29): kept per display in the store so that every gateway agrees and none loses them. */
export interface RoomSettings {
  readonly mode: RoomMode;
  readonly layout: RoomLayout;
  /** The slot `full` shows and `one-large` enlarges. */
  readonly large: number;
  /** The presenter's request the admin made the room's host (it may moderate). */
  readonly hostRequestId?: string | undefined;
  readonly updatedAt: number;
}

/**
 * waiting: in the queue; on-screen: its session holds a slot; declined: the
 * moderator said no; ended: it was on screen (or waiting) and is no more;
 * withdrawn: the presenter took it back while it waited.
 */
export type RoomRequestState = 'waiting' | 'on-screen' | 'declined' | 'ended' | 'withdrawn';

/** A presenter's request to show something on a display, from the moment it is made to its end (roomRequests.ts). */
export interface RoomRequest {
  readonly requestId: string;
  readonly displayId: string;
  readonly state: RoomRequestState;
  readonly at: number;
  /** The name label the display shows over the source. */
  readonly label: string;
  readonly requestedBy?: Requester | undefined;
  /** The target as the admin's views show it (host:port, or the browser). */
  readonly target: string;
  /** Sealed JSON of the projection request, kept only while it waits (the moderator's accept mints it). */
  readonly sealed?: string | undefined;
  /** It asked to take a slot over when the room is full (open mode; a wish the moderator sees in moderated mode). */
  readonly takeOver?: boolean | undefined;
  /** While on screen (and after): its session now (a resume makes a new one) and its slot. */
  readonly sessionId?: string | undefined;
  readonly slot?: number | undefined;
  /** When it left `waiting` or `on-screen`: who decided (`admin@ADDRESS`, `host@…`, `presenter@…`, `gateway`) and why, in words. */
  readonly decidedAt?: number | undefined;
  readonly decidedBy?: string | undefined;
  readonly reason?: string | undefined;
}

/**
 * What a display is showing, kept so that a display whose gateway died can be
 * projected again when it comes back (through any gateway). Secrets in it
 * (credentials, an invitation's password) are sealed with the session secret
 * every gateway of a deployment shares.
 */
export interface ProjectionIntent {
  readonly displayId: string;
  readonly sessionId: string;
  /** The slot it showed in (absent: 0): a resume brings it back there. One intent per slot. */
  readonly slot?: number | undefined;
  readonly requestId?: string | undefined;
  readonly target: { readonly host: string; readonly port: number; readonly name?: string | undefined };
  /** Sealed JSON of { credentials?, settings?, assistance? } (see ../session/sealedBox.ts). */
  readonly sealed: string;
  readonly requestedBy?: Requester | undefined;
  readonly since: number;
}

export type AuditAction =
  | 'display-created' | 'display-renamed' | 'display-moved' | 'display-resized' | 'display-deleted' | 'display-token-rotated'
  | 'projection-requested' | 'projection-refused' | 'projection-started' | 'projection-ended' | 'projection-resumed'
  | 'session-ended-by-admin' | 'pin-changed' | 'pin-cleared'
  | 'room-request-queued' | 'room-request-accepted' | 'room-request-declined' | 'room-request-withdrawn'
  | 'room-slot-taken-over' | 'room-source-ended' | 'room-layout-changed' | 'room-mode-changed' | 'room-host-changed'
  | 'sound-changed' | 'touch-allowed' | 'touch-revoked';

export interface AuditEntry {
  /** Increasing, unique per store; pages are asked for by `before`. */
  readonly seq: number;
  readonly at: number;
  /** Who did it: `admin@ADDRESS`, `presenter@ADDRESS`, `display:ID`, `gateway`. */
  readonly actor: string;
  readonly action: AuditAction;
  readonly displayId?: string | undefined;
  readonly sessionId?: string | undefined;
  readonly detail?: Readonly<Record<string, string | number | boolean>> | undefined;
}

export type AuditInput = Omit<AuditEntry, 'seq'>;

export interface AuditPage {
  /** Newest first. */
  readonly entries: AuditEntry[];
  /** Pass as `before` for the next (older) page; absent on the last page. */
  readonly next?: number | undefined;
}

/** A server whose certificate no longer matches its first-use pin (see ../policy/certificatePolicy.ts). */
export interface PinConflict {
  /** The canonical pin key (host:port) whose pin disagrees. */
  readonly key: string;
  readonly pinned: string;
  readonly seen: string;
  readonly at: number;
  readonly displayId?: string | undefined;
}

export type SessionUpdate =
  | { readonly state: 'active'; readonly securedAt: number }
  | { readonly state: 'ended'; readonly endedAt: number; readonly endReason: string };

/** Which control socket holds a display now; `owner` tells two sockets of one display apart. */
export interface DisplayPresence {
  readonly displayId: string;
  readonly owner: string;
  readonly since: number;
  /** How many sources its page shows at once (MAX_ROOM_SLOTS when it announced `slots`; absent: 1). */
  readonly slots?: number | undefined;
}

/** A display's room PIN (see roomPin.ts): shared by every worker and gateway through the store. */
export interface RoomPinRecord {
  readonly pin: string;
  readonly issuedAt: number;
  /** When the timer rotates it (it also rotates after each use). */
  readonly expiresAt: number;
  /** After a timer rotation the previous PIN still opens until `until`: someone may have just read it off the screen. */
  readonly previous?: { readonly pin: string; readonly until: number } | undefined;
}

/** A fixed-window counter (wrong-PIN limits): `count` in the window that ends at `resetAt` (ms since the epoch, the store's clock). */
export interface CounterState {
  readonly count: number;
  readonly resetAt: number;
}

export interface BrokerStore {
  putSession(record: SessionRecord): Promise<void>;
  /**
   * The first claim of a session id wins and marks its record claimed; every
   * later claim, from any worker sharing the store, is refused. The claim is
   * kept until `until` (the token's expiry): after that the token opens
   * nothing anyway. `leg` claims a second, separate token of the same
   * session (a browser source's presenter socket) and leaves the record as it is.
   */
  claimSession(sessionId: string, until: number, leg?: 'presenter'): Promise<boolean>;
  /** Moves a session forward (never back from ended); unknown ids are ignored. */
  updateSession(sessionId: string, update: SessionUpdate): Promise<SessionRecord | undefined>;
  getSession(sessionId: string): Promise<SessionRecord | undefined>;
  /** Newest last. */
  listSessions(): Promise<SessionRecord[]>;

  setPresence(presence: DisplayPresence): Promise<void>;
  /** Removes the presence only if `owner` still holds it (a newer socket may have taken over). */
  clearPresence(displayId: string, owner: string): Promise<boolean>;
  listPresence(): Promise<DisplayPresence[]>;

  getReprojection(displayId: string): Promise<ReprojectionState | undefined>;
  /** undefined forgets the display's backoff. */
  setReprojection(displayId: string, state: ReprojectionState | undefined): Promise<void>;

  // Displays (config seeds and those made through the admin API)

  listDisplays(): Promise<DisplayRecord[]>;
  getDisplay(displayId: string): Promise<DisplayRecord | undefined>;
  /**
   * `create`: only if the id is free (two admins creating one id at once: one
   * wins); `replace`: only if it exists (rename, move, new token digest);
   * `upsert`: either (config seeds). False when the mode's condition failed.
   */
  putDisplay(record: DisplayRecord, mode: 'create' | 'replace' | 'upsert'): Promise<boolean>;
  deleteDisplay(displayId: string): Promise<boolean>;

  // Bookings: one session per display, decided atomically across gateways

  /**
   * Books the display for the session until `until`. Refused while another
   * session's booking lives, unless that session is `replacing` (a resume) or
   * `force` is set (signage, which owns its display).
   */
  bookDisplay(booking: DisplayBooking, options?: { replacing?: string | undefined; force?: boolean | undefined }): Promise<BookingResult>;
  /**
   * Books the lowest slot below `capacity` that is free (or held by the
   * `replacing` session: a presenter takes a signage display's place), in one
   * atomic step: of two requests for the last free slot through two gateways,
   * one gets it.
   */
  bookFreeSlot(booking: Omit<DisplayBooking, 'slot'>, capacity: number, replacing?: string): Promise<SlotBookingResult>;
  /** The live booking of one slot (absent: slot 0). */
  getBooking(displayId: string, slot?: number): Promise<DisplayBooking | undefined>;
  /** Every slot's live booking, in slot order. */
  listBookings(displayId: string): Promise<DisplayBooking[]>;
  /** Releases the slot this session holds, if it still holds one. */
  releaseDisplay(displayId: string, sessionId: string): Promise<void>;
  /** The relay's per-second sample of its live sessions: stored on the records, and their bookings (their own slot's) renewed until `leaseUntil`. */
  sampleSessions(samples: SessionSample[], leaseUntil: number): Promise<void>;
  /** The display's report on its session: kept only if the session is that display's and not ended; false otherwise. */
  recordShown(sessionId: string, displayId: string, figures: DisplayFigures): Promise<boolean>;
  /**
   * The presenter's permission for the display to control the computer
   * (issue 30), kept on the session's record: the record after the change,
   * or undefined when the session is unknown or has ended.
   */
  setTouch(sessionId: string, allowed: boolean): Promise<SessionRecord | undefined>;

  // What each display is showing, for a resume after its gateway died

  /** The intent of one slot (absent: slot 0). */
  getIntent(displayId: string, slot?: number): Promise<ProjectionIntent | undefined>;
  /** Kept per slot (the intent's own). */
  setIntent(intent: ProjectionIntent): Promise<void>;
  /** Forgets the intent of whichever slot this session's is, only if it is still this session's. */
  clearIntent(displayId: string, sessionId: string): Promise<void>;

  // Rooms: settings, and presenters' requests (the queue)

  getRoomSettings(displayId: string): Promise<RoomSettings | undefined>;
  putRoomSettings(displayId: string, settings: RoomSettings): Promise<void>;
  /** Adds a request; a waiting one only while fewer than `maxWaiting` of its display wait (false: the queue is full). */
  createRoomRequest(request: RoomRequest, maxWaiting: number): Promise<boolean>;
  /**
   * Compare and set: replaces the request only while its state is one of
   * `from` (two moderators accepting one request at once: one wins).
   * Returns the request now stored when it swapped, else undefined.
   */
  updateRoomRequest(requestId: string, from: readonly RoomRequestState[], next: RoomRequest): Promise<RoomRequest | undefined>;
  getRoomRequest(requestId: string): Promise<RoomRequest | undefined>;
  /** The display's waiting requests, oldest first, and those decided in the last hour. */
  listRoomRequests(displayId: string): Promise<RoomRequest[]>;

  // Audit log and changed certificate pins

  appendAudit(entry: AuditInput): Promise<number>;
  listAudit(query: { before?: number | undefined; limit: number }): Promise<AuditPage>;
  recordPinConflicts(conflicts: PinConflict[]): Promise<void>;
  listPinConflicts(): Promise<PinConflict[]>;
  clearPinConflicts(keys: string[]): Promise<void>;

  // Room PINs and rate-limit counters

  getRoomPin(displayId: string): Promise<RoomPinRecord | undefined>;
  /**
   * Compare and set: stores `next` only if the display's PIN is still
   * `expectedPin` (null: none yet), so two workers rotating or using one PIN
   * at once agree on one outcome. Returns whether it swapped and the PIN now.
   */
  swapRoomPin(displayId: string, expectedPin: string | null, next: RoomPinRecord): Promise<{ swapped: boolean; record: RoomPinRecord }>;
  /**
   * Adds `delta` (may be negative; the count never goes below 0) to the
   * counter `key` and returns it, atomically. A counter that does not exist or
   * whose window has passed starts a new window of `windowMs` now; adding 0
   * to one reads 0 and makes nothing. A store that cannot keep another
   * counter fails closed (a count too high to pass).
   */
  addToCounter(key: string, delta: number, windowMs: number): Promise<CounterState>;
  /**
   * Ink saved on a display (issue 30): a PNG as base64, kept `ttlMs` and
   * replaced by the next under the same key. Bounded in bytes by each store
   * (the oldest go first); a reader after expiry or eviction gets undefined.
   */
  putInkPicture(key: string, pngBase64: string, ttlMs: number): Promise<void>;
  getInkPicture(key: string): Promise<string | undefined>;
}

/**
 * What a store throws when it cannot be reached (Redis down, the cluster
 * primary silent): the API answers 503 and the gateway's /readyz says why.
 */
export class StoreUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreUnavailableError';
  }
}

/** The operation names, for stores that forward calls as messages. */
export const BROKER_STORE_OPERATIONS = [
  'putSession', 'claimSession', 'updateSession', 'getSession', 'listSessions',
  'setPresence', 'clearPresence', 'listPresence', 'getReprojection', 'setReprojection',
  'listDisplays', 'getDisplay', 'putDisplay', 'deleteDisplay',
  'bookDisplay', 'bookFreeSlot', 'getBooking', 'listBookings', 'releaseDisplay', 'sampleSessions', 'recordShown', 'setTouch',
  'getIntent', 'setIntent', 'clearIntent',
  'getRoomSettings', 'putRoomSettings', 'createRoomRequest', 'updateRoomRequest', 'getRoomRequest', 'listRoomRequests',
  'appendAudit', 'listAudit', 'recordPinConflicts', 'listPinConflicts', 'clearPinConflicts',
  'getRoomPin', 'swapRoomPin', 'addToCounter', 'putInkPicture', 'getInkPicture',
] as const satisfies readonly (keyof BrokerStore)[];

export type BrokerStoreOperation = (typeof BROKER_STORE_OPERATIONS)[number];

/** How long a decided request (declined, ended, withdrawn) stays readable: its presenter's page says what became of it. */
export const ROOM_REQUEST_RETENTION_MS = 3600_000;

/** The key a slot's booking and intent are kept under: slot 0 keeps the display's own (what stores held before slots). */
export function slotKey(displayId: string, slot: number | undefined): string {
  return slot === undefined || slot === 0 ? displayId : `${displayId}:${String(slot)}`;
}
