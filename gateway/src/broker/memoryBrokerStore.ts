// The broker's state in this process's memory: the store of a single-process
// gateway, and the one the cluster primary keeps for its workers. Bounded:
// claims are forgotten once their token has expired, ended sessions after a
// retention time, and the session table never holds more than maxSessions.
import type {
  AuditEntry, AuditInput, AuditPage, BookingResult, BrokerStore, CounterState, DisplayBooking, DisplayPresence, DisplayRecord,
  DisplayFigures, PinConflict, ProjectionIntent, ReprojectionState, RoomPinRecord, SessionRecord, SessionSample, SessionUpdate,
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
}

/** Sweeping the session table at most this often keeps minting O(1) on average. */
const SWEEP_INTERVAL_MS = 1000;

export class MemoryBrokerStore implements BrokerStore {
  private readonly sessions = new Map<string, SessionRecord>();
  /** sessionId → until. Tokens live a fixed time, so insertion order is close to expiry order. */
  private readonly claims = new Map<string, number>();
  private readonly presence = new Map<string, DisplayPresence>();
  private readonly reprojection = new Map<string, ReprojectionState>();
  private readonly displays = new Map<string, DisplayRecord>();
  private readonly bookings = new Map<string, DisplayBooking>();
  private readonly intents = new Map<string, ProjectionIntent>();
  /** Oldest first. */
  private audit: AuditEntry[] = [];
  private auditSeq = 0;
  private readonly pinConflicts = new Map<string, PinConflict>();
  private readonly roomPins = new Map<string, RoomPinRecord>();
  private readonly counters = new Map<string, CounterState>();
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
    this.intents.delete(displayId);
    this.presence.delete(displayId);
    this.roomPins.delete(displayId);
    return Promise.resolve(this.displays.delete(displayId));
  }

  bookDisplay(booking: DisplayBooking, options: { replacing?: string | undefined; force?: boolean | undefined } = {}): Promise<BookingResult> {
    const holder = this.liveBooking(booking.displayId);
    if (holder && holder.sessionId !== booking.sessionId && holder.sessionId !== options.replacing && options.force !== true) {
      return Promise.resolve({ ok: false, holder });
    }
    this.bookings.set(booking.displayId, booking);
    return Promise.resolve({ ok: true });
  }

  getBooking(displayId: string): Promise<DisplayBooking | undefined> {
    return Promise.resolve(this.liveBooking(displayId));
  }

  releaseDisplay(displayId: string, sessionId: string): Promise<void> {
    if (this.bookings.get(displayId)?.sessionId === sessionId) this.bookings.delete(displayId);
    return Promise.resolve();
  }

  sampleSessions(samples: SessionSample[], leaseUntil: number): Promise<void> {
    for (const { sessionId, displayId, ...stats } of samples) {
      const record = this.sessions.get(sessionId);
      if (record && record.state !== 'ended') this.sessions.set(sessionId, { ...record, stats });
      // A lapsed booking is taken back: the session still shows on its display.
      const booking = this.liveBooking(displayId);
      if (!booking || booking.sessionId === sessionId) this.bookings.set(displayId, { displayId, sessionId, until: leaseUntil });
    }
    return Promise.resolve();
  }

  recordShown(sessionId: string, displayId: string, figures: DisplayFigures): Promise<boolean> {
    const record = this.sessions.get(sessionId);
    if (!record || record.displayId !== displayId || record.state === 'ended') return Promise.resolve(false);
    this.sessions.set(sessionId, { ...record, shown: figures });
    return Promise.resolve(true);
  }

  getIntent(displayId: string): Promise<ProjectionIntent | undefined> {
    return Promise.resolve(this.intents.get(displayId));
  }

  setIntent(intent: ProjectionIntent): Promise<void> {
    this.intents.set(intent.displayId, intent);
    return Promise.resolve();
  }

  clearIntent(displayId: string, sessionId: string): Promise<void> {
    if (this.intents.get(displayId)?.sessionId === sessionId) this.intents.delete(displayId);
    return Promise.resolve();
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
    return { displays: [...this.displays.values()], intents: [...this.intents.values()], audit: [...this.audit], pinConflicts: [...this.pinConflicts.values()] };
  }

  restoreDurableState(state: DurableBrokerState): void {
    for (const display of state.displays) this.displays.set(display.id, display);
    for (const intent of state.intents) this.intents.set(intent.displayId, intent);
    this.audit = state.audit.slice(-AUDIT_CAPACITY);
    this.auditSeq = this.audit.at(-1)?.seq ?? 0;
    for (const conflict of state.pinConflicts) this.pinConflicts.set(conflict.key, conflict);
  }

  private liveBooking(displayId: string): DisplayBooking | undefined {
    const booking = this.bookings.get(displayId);
    if (booking && booking.until < this.clock()) {
      this.bookings.delete(displayId);
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
