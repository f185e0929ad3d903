// The broker's state in this process's memory: the store of a single-process
// gateway, and the one the cluster primary keeps for its workers. Bounded:
// claims are forgotten once their token has expired, ended sessions after a
// retention time, and the session table never holds more than maxSessions.
import { MAX_ROOM_SLOTS } from '@lanterna/protocol';
import {
  ROOM_REQUEST_RETENTION_MS, slotKey,
  type AuditEntry, type AuditInput, type AuditPage, type BookingResult, type BrokerStore, type CounterState, type DisplayBooking, type DisplayPresence,
  type DisplayRecord, type DisplayFigures, type PinConflict, type ProjectionIntent, type ReprojectionState, type RoomPinRecord, type RoomRequest,
  type RoomRequestState, type RoomSettings, type SessionRecord, type SessionSample, type SessionUpdate, type SlotBookingResult,
} from './brokerStore.js';

export interface MemoryStoreLimits {
  /** Most session records kept; the oldest finished ones go first. */
  readonly maxSessions: number;
  /** How long an ended session stays listed. */
  readonly endedRetentionMs: number;
  /** Most live counters (wrong-PIN limits, one per display and source address); past it a new one fails closed. */
  readonly maxCounters?: number | undefined;
}

const DEFAULT_MAX_COUNTERS = 100_000;

export const DEFAULT_MEMORY_STORE_LIMITS: MemoryStoreLimits = { maxSessions: 10_000, endedRetentionMs: 10 * 60_000, maxCounters: DEFAULT_MAX_COUNTERS };

/** What a counter reads when the store cannot keep it: more than any limit, and still a plain JSON number. */
const FULL_COUNT = Number.MAX_SAFE_INTEGER;

/** The audit log keeps this many entries; older ones fall off. */
export const AUDIT_CAPACITY = 5000;

/** The parts of the state worth keeping across a restart (the embedded store writes them to its state file). */
export interface DurableBrokerState {
  displays: DisplayRecord[];
  intents: ProjectionIntent[];
  audit: AuditEntry[];
  pinConflicts: PinConflict[];
  /** Absent in files written before rooms had settings. */
  rooms?: { displayId: string; settings: RoomSettings }[] | undefined;
}

/** Ink pictures held together, in base64 characters (≈48 MiB of PNG): past it the oldest are dropped. */
export const MAX_INK_CHARS = 64 * 1024 * 1024;

/** Most presenters' requests kept (waiting and recently decided); past it the oldest decided ones go, and a new one is refused. */
const MAX_ROOM_REQUESTS = 10_000;

/** Sweeping the session table at most this often keeps minting O(1) on average. */
const SWEEP_INTERVAL_MS = 1000;

export class MemoryBrokerStore implements BrokerStore {
  private readonly sessions = new Map<string, SessionRecord>();
  /** sessionId → until. Tokens live a fixed time, so insertion order is close to expiry order. */
  private readonly claims = new Map<string, number>();
  private readonly presence = new Map<string, DisplayPresence>();
  private readonly reprojection = new Map<string, ReprojectionState>();
  private readonly displays = new Map<string, DisplayRecord>();
  /** slotKey(display, slot) → booking. */
  private readonly bookings = new Map<string, DisplayBooking>();
  /** slotKey(display, slot) → intent. */
  private readonly intents = new Map<string, ProjectionIntent>();
  private readonly roomSettings = new Map<string, RoomSettings>();
  /** Oldest first. */
  private readonly roomRequests = new Map<string, RoomRequest>();
  /** Oldest first. */
  private audit: AuditEntry[] = [];
  private auditSeq = 0;
  private readonly pinConflicts = new Map<string, PinConflict>();
  private readonly roomPins = new Map<string, RoomPinRecord>();
  private readonly counters = new Map<string, CounterState>();
  /** Ink pictures (issue 30), oldest first, and the characters they hold together (capped by MAX_INK_CHARS). */
  private readonly inkPictures = new Map<string, { png: string; until: number }>();
  private inkChars = 0;
  private lastSweep = -Infinity;

  constructor(
    private readonly clock: () => number = Date.now,
    private readonly limits: MemoryStoreLimits = DEFAULT_MEMORY_STORE_LIMITS,
  ) {}

  /** Claims remembered now (for tests of the bound). */
  get claimCount(): number {
    return this.claims.size;
  }

  putSession(record: SessionRecord): Promise<void> {
    this.sessions.delete(record.sessionId);
    this.sessions.set(record.sessionId, record);
    this.sweepSessions();
    return Promise.resolve();
  }

  claimSession(sessionId: string, until: number, leg?: 'presenter'): Promise<boolean> {
    const now = this.clock();
    this.sweepClaims(now);
    const key = leg === undefined ? sessionId : `${sessionId}:${leg}`;
    if (this.claims.has(key)) return Promise.resolve(false);
    this.claims.set(key, until);
    if (leg !== undefined) return Promise.resolve(true);
    const record = this.sessions.get(sessionId);
    if (record?.state === 'minted') this.sessions.set(sessionId, { ...record, state: 'claimed', claimedAt: now });
    return Promise.resolve(true);
  }

  updateSession(sessionId: string, update: SessionUpdate): Promise<SessionRecord | undefined> {
    const record = this.sessions.get(sessionId);
    if (!record || record.state === 'ended') return Promise.resolve(record);
    const next: SessionRecord = { ...record, ...update };
    this.sessions.set(sessionId, next);
    return Promise.resolve(next);
  }

  getSession(sessionId: string): Promise<SessionRecord | undefined> {
    this.sweepSessions(true);
    return Promise.resolve(this.sessions.get(sessionId));
  }

  listSessions(): Promise<SessionRecord[]> {
    this.sweepSessions(true);
    return Promise.resolve([...this.sessions.values()]);
  }

  setPresence(presence: DisplayPresence): Promise<void> {
    this.presence.set(presence.displayId, presence);
    return Promise.resolve();
  }

  clearPresence(displayId: string, owner: string): Promise<boolean> {
    if (this.presence.get(displayId)?.owner !== owner) return Promise.resolve(false);
    this.presence.delete(displayId);
    return Promise.resolve(true);
  }

  listPresence(): Promise<DisplayPresence[]> {
    return Promise.resolve([...this.presence.values()]);
  }

  getReprojection(displayId: string): Promise<ReprojectionState | undefined> {
    return Promise.resolve(this.reprojection.get(displayId));
  }

  setReprojection(displayId: string, state: ReprojectionState | undefined): Promise<void> {
    if (state) this.reprojection.set(displayId, state);
    else this.reprojection.delete(displayId);
    return Promise.resolve();
  }

  listDisplays(): Promise<DisplayRecord[]> {
    return Promise.resolve([...this.displays.values()]);
  }

  getDisplay(displayId: string): Promise<DisplayRecord | undefined> {
    return Promise.resolve(this.displays.get(displayId));
  }

  putDisplay(record: DisplayRecord, mode: 'create' | 'replace' | 'upsert'): Promise<boolean> {
    const exists = this.displays.has(record.id);
    if ((mode === 'create' && exists) || (mode === 'replace' && !exists)) return Promise.resolve(false);
    this.displays.set(record.id, record);
    return Promise.resolve(true);
  }

  deleteDisplay(displayId: string): Promise<boolean> {
    for (let slot = 0; slot < MAX_ROOM_SLOTS; slot += 1) this.intents.delete(slotKey(displayId, slot));
    this.roomSettings.delete(displayId);
    this.presence.delete(displayId);
    this.roomPins.delete(displayId);
    return Promise.resolve(this.displays.delete(displayId));
  }

  bookDisplay(booking: DisplayBooking, options: { replacing?: string | undefined; force?: boolean | undefined } = {}): Promise<BookingResult> {
    const holder = this.liveBooking(booking.displayId, booking.slot ?? 0);
    if (holder && holder.sessionId !== booking.sessionId && holder.sessionId !== options.replacing && options.force !== true) {
      return Promise.resolve({ ok: false, holder });
    }
    this.bookings.set(slotKey(booking.displayId, booking.slot), booking);
    return Promise.resolve({ ok: true });
  }

  bookFreeSlot(booking: Omit<DisplayBooking, 'slot'>, capacity: number, replacing?: string): Promise<SlotBookingResult> {
    const holders: DisplayBooking[] = [];
    for (let slot = 0; slot < Math.min(capacity, MAX_ROOM_SLOTS); slot += 1) {
      const holder = this.liveBooking(booking.displayId, slot);
      if (holder && holder.sessionId !== replacing) {
        holders.push(holder);
        continue;
      }
      this.bookings.set(slotKey(booking.displayId, slot), { ...booking, slot });
      return Promise.resolve({ ok: true, slot });
    }
    return Promise.resolve({ ok: false, holders });
  }

  getBooking(displayId: string, slot = 0): Promise<DisplayBooking | undefined> {
    return Promise.resolve(this.liveBooking(displayId, slot));
  }

  listBookings(displayId: string): Promise<DisplayBooking[]> {
    const live: DisplayBooking[] = [];
    for (let slot = 0; slot < MAX_ROOM_SLOTS; slot += 1) {
      const booking = this.liveBooking(displayId, slot);
      if (booking) live.push(booking);
    }
    return Promise.resolve(live);
  }

  releaseDisplay(displayId: string, sessionId: string): Promise<void> {
    for (let slot = 0; slot < MAX_ROOM_SLOTS; slot += 1) {
      const key = slotKey(displayId, slot);
      if (this.bookings.get(key)?.sessionId === sessionId) this.bookings.delete(key);
    }
    return Promise.resolve();
  }

  sampleSessions(samples: SessionSample[], leaseUntil: number): Promise<void> {
    for (const { sessionId, displayId, ...stats } of samples) {
      const record = this.sessions.get(sessionId);
      if (record && record.state !== 'ended') this.sessions.set(sessionId, { ...record, stats });
      // A lapsed booking is taken back: the session still shows in its slot.
      const slot = record?.slot ?? 0;
      const booking = this.liveBooking(displayId, slot);
      if (!booking || booking.sessionId === sessionId) this.bookings.set(slotKey(displayId, slot), { displayId, sessionId, until: leaseUntil, ...(slot === 0 ? {} : { slot }) });
    }
    return Promise.resolve();
  }

  setTouch(sessionId: string, allowed: boolean): Promise<SessionRecord | undefined> {
    const record = this.sessions.get(sessionId);
    if (!record || record.state === 'ended') return Promise.resolve(undefined);
    const next: SessionRecord = { ...record, touch: allowed };
    this.sessions.set(sessionId, next);
    return Promise.resolve(next);
  }

  recordShown(sessionId: string, displayId: string, figures: DisplayFigures): Promise<boolean> {
    const record = this.sessions.get(sessionId);
    if (!record || record.displayId !== displayId || record.state === 'ended') return Promise.resolve(false);
    this.sessions.set(sessionId, { ...record, shown: figures });
    return Promise.resolve(true);
  }

  getIntent(displayId: string, slot?: number): Promise<ProjectionIntent | undefined> {
    return Promise.resolve(this.intents.get(slotKey(displayId, slot)));
  }

  setIntent(intent: ProjectionIntent): Promise<void> {
    this.intents.set(slotKey(intent.displayId, intent.slot), intent);
    return Promise.resolve();
  }

  clearIntent(displayId: string, sessionId: string): Promise<void> {
    for (let slot = 0; slot < MAX_ROOM_SLOTS; slot += 1) {
      const key = slotKey(displayId, slot);
      if (this.intents.get(key)?.sessionId === sessionId) this.intents.delete(key);
    }
    return Promise.resolve();
  }

  getRoomSettings(displayId: string): Promise<RoomSettings | undefined> {
    return Promise.resolve(this.roomSettings.get(displayId));
  }

  putRoomSettings(displayId: string, settings: RoomSettings): Promise<void> {
    this.roomSettings.set(displayId, settings);
    return Promise.resolve();
  }

  createRoomRequest(request: RoomRequest, maxWaiting: number): Promise<boolean> {
    this.sweepRoomRequests();
    if (this.roomRequests.has(request.requestId) || this.roomRequests.size >= MAX_ROOM_REQUESTS) return Promise.resolve(false);
    if (request.state === 'waiting') {
      let waiting = 0;
      for (const other of this.roomRequests.values()) if (other.displayId === request.displayId && other.state === 'waiting') waiting += 1;
      if (waiting >= maxWaiting) return Promise.resolve(false);
    }
    this.roomRequests.set(request.requestId, request);
    return Promise.resolve(true);
  }

  updateRoomRequest(requestId: string, from: readonly RoomRequestState[], next: RoomRequest): Promise<RoomRequest | undefined> {
    const current = this.roomRequests.get(requestId);
    if (!current || !from.includes(current.state)) return Promise.resolve(undefined);
    this.roomRequests.set(requestId, next);
    return Promise.resolve(next);
  }

  getRoomRequest(requestId: string): Promise<RoomRequest | undefined> {
    this.sweepRoomRequests();
    return Promise.resolve(this.roomRequests.get(requestId));
  }

  listRoomRequests(displayId: string): Promise<RoomRequest[]> {
    this.sweepRoomRequests();
    return Promise.resolve([...this.roomRequests.values()].filter((request) => request.displayId === displayId));
  }

  /** Decided requests go an hour after their decision; waiting and on-screen ones stay (bounded by the queue cap and the slots). */
  private sweepRoomRequests(): void {
    const now = this.clock();
    for (const [id, request] of this.roomRequests) {
      if (request.state !== 'waiting' && request.state !== 'on-screen' && (request.decidedAt ?? request.at) + ROOM_REQUEST_RETENTION_MS < now) this.roomRequests.delete(id);
    }
  }

  appendAudit(entry: AuditInput): Promise<number> {
    const seq = ++this.auditSeq;
    this.audit.push({ seq, ...entry });
    if (this.audit.length > AUDIT_CAPACITY) this.audit.splice(0, this.audit.length - AUDIT_CAPACITY);
    return Promise.resolve(seq);
  }

  listAudit({ before, limit }: { before?: number | undefined; limit: number }): Promise<AuditPage> {
    const older = before === undefined ? this.audit : this.audit.filter((entry) => entry.seq < before);
    const entries = older.slice(-limit).reverse();
    const last = entries.at(-1);
    const more = last !== undefined && older.length > entries.length;
    return Promise.resolve(more ? { entries, next: last.seq } : { entries });
  }

  recordPinConflicts(conflicts: PinConflict[]): Promise<void> {
    for (const conflict of conflicts) this.pinConflicts.set(conflict.key, conflict);
    return Promise.resolve();
  }

  listPinConflicts(): Promise<PinConflict[]> {
    return Promise.resolve([...this.pinConflicts.values()]);
  }

  clearPinConflicts(keys: string[]): Promise<void> {
    for (const key of keys) this.pinConflicts.delete(key);
    return Promise.resolve();
  }

  /** Whether a session was minted here (and not yet forgotten). */
  hasSession(sessionId: string): boolean {
    return this.sessions.has(sessionId);
  }

  durableState(): DurableBrokerState {
    return {
      displays: [...this.displays.values()], intents: [...this.intents.values()], audit: [...this.audit], pinConflicts: [...this.pinConflicts.values()],
      rooms: [...this.roomSettings].map(([displayId, settings]) => ({ displayId, settings })),
    };
  }

  restoreDurableState(state: DurableBrokerState): void {
    for (const display of state.displays) this.displays.set(display.id, display);
    for (const intent of state.intents) this.intents.set(slotKey(intent.displayId, intent.slot), intent);
    for (const room of state.rooms ?? []) this.roomSettings.set(room.displayId, room.settings);
    this.audit = state.audit.slice(-AUDIT_CAPACITY);
    this.auditSeq = this.audit.at(-1)?.seq ?? 0;
    for (const conflict of state.pinConflicts) this.pinConflicts.set(conflict.key, conflict);
  }

  private liveBooking(displayId: string, slot: number): DisplayBooking | undefined {
    const key = slotKey(displayId, slot);
    const booking = this.bookings.get(key);
    if (booking && booking.until < this.clock()) {
      this.bookings.delete(key);
      return undefined;
    }
    return booking;
  }

  getRoomPin(displayId: string): Promise<RoomPinRecord | undefined> {
    return Promise.resolve(this.roomPins.get(displayId));
  }

  swapRoomPin(displayId: string, expectedPin: string | null, next: RoomPinRecord): Promise<{ swapped: boolean; record: RoomPinRecord }> {
    const current = this.roomPins.get(displayId);
    if ((current?.pin ?? null) !== expectedPin) return Promise.resolve({ swapped: false, record: current ?? next });
    this.roomPins.set(displayId, next);
    return Promise.resolve({ swapped: true, record: next });
  }

  addToCounter(key: string, delta: number, windowMs: number): Promise<CounterState> {
    const now = this.clock();
    let current = this.counters.get(key);
    if (current && current.resetAt <= now) {
      this.counters.delete(key);
      current = undefined;
    }
    // Adding nothing reads: no counter is made for it (tokenGuesses.ts reads a /64's before counting an address).
    if (!current && delta === 0) return Promise.resolve({ count: 0, resetAt: now + windowMs });
    if (!current && this.counters.size >= (this.limits.maxCounters ?? DEFAULT_MAX_COUNTERS)) {
      this.sweepCounters(now);
      // Evicting a live counter would hand an attacker with many addresses a fresh budget: refuse instead.
      if (this.counters.size >= (this.limits.maxCounters ?? DEFAULT_MAX_COUNTERS)) return Promise.resolve({ count: FULL_COUNT, resetAt: now + windowMs });
    }
    const next: CounterState = { count: Math.max(0, (current?.count ?? 0) + delta), resetAt: current?.resetAt ?? now + windowMs };
    this.counters.set(key, next);
    return Promise.resolve(next);
  }
  putInkPicture(key: string, pngBase64: string, ttlMs: number): Promise<void> {
    const now = this.clock();
    this.dropInk(key);
    for (const [other, held] of this.inkPictures) if (held.until <= now) this.dropInk(other);
    // Oldest first: a burst of saves pushes out what was saved longest ago, never the newest.
    for (const other of this.inkPictures.keys()) {
      if (this.inkChars + pngBase64.length <= MAX_INK_CHARS) break;
      this.dropInk(other);
    }
    if (pngBase64.length > MAX_INK_CHARS) return Promise.resolve();
    this.inkPictures.set(key, { png: pngBase64, until: now + ttlMs });
    this.inkChars += pngBase64.length;
    return Promise.resolve();
  }

  getInkPicture(key: string): Promise<string | undefined> {
    const held = this.inkPictures.get(key);
    if (held && held.until <= this.clock()) {
      this.dropInk(key);
      return Promise.resolve(undefined);
    }
    return Promise.resolve(held?.png);
  }

  private dropInk(key: string): void {
    const held = this.inkPictures.get(key);
    if (!held) return;
    this.inkPictures.delete(key);
    this.inkChars -= held.png.length;
  }


  /** Counters remembered now (for tests of the bound). */
  get counterCount(): number {
    return this.counters.size;
  }

  private sweepCounters(now: number): void {
    for (const [key, counter] of this.counters) if (counter.resetAt <= now) this.counters.delete(key);
  }

  private sweepClaims(now: number): void {
    for (const [sessionId, until] of this.claims) {
      if (until >= now) break;
      this.claims.delete(sessionId);
    }
  }

  private sweepSessions(force = false): void {
    const now = this.clock();
    if (!force && now - this.lastSweep < SWEEP_INTERVAL_MS && this.sessions.size <= this.limits.maxSessions) return;
    this.lastSweep = now;
    for (const [id, record] of this.sessions) {
      if (record.state === 'minted' && record.expiresAt < now) {
        this.sessions.set(id, { ...record, state: 'ended', endedAt: record.expiresAt, endReason: 'expired' });
      } else if (record.state === 'ended' && (record.endedAt ?? 0) + this.limits.endedRetentionMs < now) {
        this.sessions.delete(id);
      }
    }
    // Over the cap: drop the oldest records that are not relaying; live ones are bounded by real connections.
    for (const [id, record] of this.sessions) {
      if (this.sessions.size <= this.limits.maxSessions) break;
      if (record.state !== 'active' && record.state !== 'claimed') this.sessions.delete(id);
    }
  }
}
