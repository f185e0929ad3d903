// A display back online: the sessions it showed when their gateway died come
// back into their slots. Each minted session leaves an intent (target and
// sealed credentials); once the old session's lease has lapsed and within the
// grace period of its last sign of life, the same projection is minted again
// and the old session ends `gateway-lost`. Otherwise a signage display gets
// its projection (projectionDesk.ts).
import { MAX_ROOM_SLOTS } from '@lanterna/protocol';
import { SessionTokenSigner } from '../session/sessionToken.js';
import type { SealedBox } from '../session/sealedBox.js';
import type { BrokerStore, ProjectionIntent } from './brokerStore.js';
import type { PublishEvent } from './brokerEvents.js';
import type { AuditLog } from './auditLog.js';
import type { BrokerTimeouts } from './brokerParts.js';
import type { ProjectionRequest, SessionMint } from './sessionMint.js';
import type { ProjectionDesk } from './projectionDesk.js';

/** What a display that just came online should get: nothing, or a check again later (its old session may still live). */
export interface ReadyOutcome {
  action: 'none' | 'signage' | 'resumed' | 'wait';
  retryInMs?: number | undefined;
}

const DEFAULT_RESUME_GRACE_MS = 60_000;

export interface SessionResumeDeps {
  store: BrokerStore;
  mint: SessionMint;
  projections: Pick<ProjectionDesk, 'projectSignage'>;
  publish: PublishEvent;
  auditLog: AuditLog;
  /** Opens what a resume needs (credentials); without it nothing resumes. */
  sealer?: SealedBox | undefined;
  timeouts: Pick<BrokerTimeouts, 'sessionTokenMs' | 'resumeGraceMs'>;
  /** Ms since the epoch; composeBroker gives every part the same one. */
  clock: () => number;
}

export class SessionResume {
  constructor(private readonly deps: SessionResumeDeps) {}

  /**
   * A display is online: if it was showing a session whose gateway died (the
   * session's booking lapsed without an end, within the grace period), that
   * projection is minted again to the same target; if the old session may
   * still live, ask again when its lease would lapse; else a signage display
   * gets its projection. `retry` is the later check: it never starts signage.
   */
  async displayReady(displayId: string, retry = false): Promise<ReadyOutcome> {
    // Each slot's source comes back into its own slot; the display waits for the slowest lease.
    const outcomes = await Promise.all(Array.from({ length: MAX_ROOM_SLOTS }, (_, slot) => this.slotReady(displayId, slot)));
    const waits = outcomes.filter((outcome) => outcome.action === 'wait').map((outcome) => outcome.retryInMs ?? 0);
    if (waits.length > 0) return { action: 'wait', retryInMs: Math.max(...waits) };
    if (outcomes.some((outcome) => outcome.action === 'resumed')) return { action: 'resumed' };
    if (outcomes.some((outcome) => outcome.action === 'none' && outcome.held === true)) return { action: 'none' };
    if (retry) return { action: 'none' };
    return (await this.deps.projections.projectSignage(displayId)) ? { action: 'signage' } : { action: 'none' };
  }

  /** One slot of displayReady: its intent resumed, waited for, or forgotten; `held`: another session holds the slot. */
  private async slotReady(displayId: string, slot: number): Promise<ReadyOutcome & { held?: boolean }> {
    const { store } = this.deps;
    const intent = await store.getIntent(displayId, slot);
    if (!intent) return { action: 'signage' };
    const [record, booking] = await Promise.all([store.getSession(intent.sessionId), store.getBooking(displayId, slot)]);
    const now = this.deps.clock();
    if (booking && booking.sessionId !== intent.sessionId) return { action: 'none', held: true };
    if (booking && record?.state !== 'minted') return { action: 'wait', retryInMs: Math.max(booking.until - now, 0) + 100 };
    const lastAlive = record?.stats?.sampledAt ?? record?.securedAt ?? record?.claimedAt ?? intent.since;
    const grace = this.deps.timeouts.resumeGraceMs ?? DEFAULT_RESUME_GRACE_MS;
    if (record && record.state !== 'ended' && now - lastAlive <= grace) {
      const resumed = await this.resume(intent);
      if (resumed) return { action: 'resumed' };
    }
    await store.clearIntent(displayId, intent.sessionId);
    return { action: 'signage' };
  }

  private async resume(intent: ProjectionIntent): Promise<boolean> {
    const secrets = this.deps.sealer?.open(intent.sealed) as Pick<ProjectionRequest, 'credentials' | 'settings' | 'assistance'> | undefined;
    if (!secrets) return false;
    const sessionId = SessionTokenSigner.newSessionId();
    const slot = intent.slot ?? 0;
    const booked = await this.deps.store.bookDisplay(
      { displayId: intent.displayId, sessionId, until: this.deps.clock() + this.deps.timeouts.sessionTokenMs, ...(slot === 0 ? {} : { slot }) },
      { replacing: intent.sessionId },
    );
    if (!booked.ok) return false;
    await this.deps.mint.mint(sessionId, { displayId: intent.displayId, target: intent.target, ...secrets, requestedBy: intent.requestedBy, requestId: intent.requestId }, slot);
    if (intent.requestId !== undefined) await this.followRequest(intent.requestId, sessionId);
    // In case the old session still runs somewhere (its gateway was only cut off), it stops.
    this.deps.publish({ kind: 'stop-session', displayId: intent.displayId, sessionId: intent.sessionId, reason: 'resumed elsewhere' });
    await this.deps.store.updateSession(intent.sessionId, { state: 'ended', endedAt: this.deps.clock(), endReason: 'gateway-lost' });
    await this.deps.auditLog.record(undefined, 'projection-resumed', { displayId: intent.displayId, sessionId, detail: { previous: intent.sessionId, slot } });
    return true;
  }

  /** A resumed source's request now names its new session (its presenter's status follows it). */
  private async followRequest(requestId: string, sessionId: string): Promise<void> {
    const request = await this.deps.store.getRoomRequest(requestId);
    if (request?.state === 'on-screen') await this.deps.store.updateRoomRequest(requestId, ['on-screen'], { ...request, sessionId });
  }
}
