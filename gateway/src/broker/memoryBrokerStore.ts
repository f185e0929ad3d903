// The broker's state in this process's memory: the store of a single-process
// gateway, and the one the cluster primary keeps for its workers. Bounded:
// claims are forgotten once their token has expired, ended sessions after a
// retention time, and the session table never holds more than maxSessions.
import type { BrokerStore, DisplayPresence, ReprojectionState, SessionRecord, SessionUpdate } from './brokerStore.js';

export interface MemoryStoreLimits {
  /** Most session records kept; the oldest finished ones go first. */
  readonly maxSessions: number;
  /** How long an ended session stays listed. */
  readonly endedRetentionMs: number;
}

export const DEFAULT_MEMORY_STORE_LIMITS: MemoryStoreLimits = { maxSessions: 10_000, endedRetentionMs: 10 * 60_000 };

/** Sweeping the session table at most this often keeps minting O(1) on average. */
const SWEEP_INTERVAL_MS = 1000;

export class MemoryBrokerStore implements BrokerStore {
  private readonly sessions = new Map<string, SessionRecord>();
  /** sessionId → until. Tokens live a fixed time, so insertion order is close to expiry order. */
  private readonly claims = new Map<string, number>();
  private readonly presence = new Map<string, DisplayPresence>();
  private readonly reprojection = new Map<string, ReprojectionState>();
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

  claimSession(sessionId: string, until: number): Promise<boolean> {
    const now = this.clock();
    this.sweepClaims(now);
    if (this.claims.has(sessionId)) return Promise.resolve(false);
    this.claims.set(sessionId, until);
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
