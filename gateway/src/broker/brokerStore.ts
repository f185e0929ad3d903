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
}

/** The operation names, for stores that forward calls as messages. */
export const BROKER_STORE_OPERATIONS = [
  'putSession', 'claimSession', 'updateSession', 'getSession', 'listSessions',
  'setPresence', 'clearPresence', 'listPresence', 'getReprojection', 'setReprojection',
] as const satisfies readonly (keyof BrokerStore)[];

export type BrokerStoreOperation = (typeof BROKER_STORE_OPERATIONS)[number];
