// The broker's state, behind the one interface every deployment implements:
// in memory for one process (memoryBrokerStore.ts), through the cluster
// primary for several workers (../cluster/ipcBrokerStore.ts), and later a
// store shared by several gateways. Every operation is asynchronous and
// carries plain JSON data, so any of them can sit across a process or network
// boundary. Decisions live in the broker, not here: a store only keeps records
// and makes the one check that must be atomic (the first claim of a session).
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
  /** `server-closed`, `client-closed`, `stopped`, `gateway-shutdown`, `expired`, or the error code. */
  readonly endReason?: string | undefined;
}

export type SessionUpdate =
  | { readonly state: 'active'; readonly securedAt: number }
  | { readonly state: 'ended'; readonly endedAt: number; readonly endReason: string };

/** Which control socket holds a display now; `owner` tells two sockets of one display apart. */
export interface DisplayPresence {
  readonly displayId: string;
  readonly owner: string;
  readonly since: number;
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
   * nothing anyway.
   */
  claimSession(sessionId: string, until: number): Promise<boolean>;
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
   * whose window has passed starts a new window of `windowMs` now. A store
   * that cannot keep another counter fails closed (a count too high to pass).
   */
  addToCounter(key: string, delta: number, windowMs: number): Promise<CounterState>;
}

/** The operation names, for stores that forward calls as messages. */
export const BROKER_STORE_OPERATIONS = [
  'putSession', 'claimSession', 'updateSession', 'getSession', 'listSessions',
  'setPresence', 'clearPresence', 'listPresence', 'getReprojection', 'setReprojection',
  'getRoomPin', 'swapRoomPin', 'addToCounter',
] as const satisfies readonly (keyof BrokerStore)[];

export type BrokerStoreOperation = (typeof BROKER_STORE_OPERATIONS)[number];
