// Where fingers touch a browser presenter's picture at the display (issue 30),
// for the presenter's page: the display's `laser` messages reach every worker
// on the gateway bus (`laser` events); this keeps the newest few points of
// each session and wakes the presenter page's long-poll that waits for them
// (presenterApi.ts, GET …/projection/laser). Memory is capped: LASER_POINTS_KEPT
// points per session, MAX_SESSIONS sessions (the oldest forgotten first), and
// one waiter list per session that empties as answers go out.
import { LASER_POINTS_KEPT, type LaserPoints } from '@lanterna/protocol';
import type { GatewayBus } from '../cluster/gatewayBus.js';

const MAX_SESSIONS = 512;
/** At most this many presenter requests wait on one session (a page has one; more are refused at once, answered empty). */
const MAX_WAITERS = 8;

interface SessionPoints {
  seq: number;
  points: LaserPoints['points'];
  waiters: Set<() => void>;
}

export class LaserFeed {
  private readonly sessions = new Map<string, SessionPoints>();

  constructor(bus: GatewayBus, private readonly clock: () => number = Date.now) {
    bus.subscribe((event) => {
      if (event.kind === 'laser') this.add(event.sessionId, { x: event.x, y: event.y, down: event.down });
    });
  }

  private add(sessionId: string, point: { x: number; y: number; down: boolean }): void {
    let entry = this.sessions.get(sessionId);
    if (entry) {
      this.sessions.delete(sessionId); // newest last: the first is the one to forget
    } else {
      entry = { seq: 0, points: [], waiters: new Set() };
      if (this.sessions.size >= MAX_SESSIONS) {
        const oldest = this.sessions.keys().next().value;
        if (oldest !== undefined) this.forget(oldest);
      }
    }
    this.sessions.set(sessionId, entry);
    entry.seq += 1;
    entry.points.push({ ...point, at: this.clock() });
    if (entry.points.length > LASER_POINTS_KEPT) entry.points.splice(0, entry.points.length - LASER_POINTS_KEPT);
    const waiters = [...entry.waiters];
    entry.waiters.clear();
    for (const wake of waiters) wake();
  }

  private forget(sessionId: string): void {
    const entry = this.sessions.get(sessionId);
    this.sessions.delete(sessionId);
    for (const wake of entry?.waiters ?? []) wake();
  }

  /** The points after `after` (by sequence), at once if there are any, else when the next comes or `waitMs` passes. */
  async next(sessionId: string, after: number, waitMs: number, gone: AbortSignal): Promise<LaserPoints> {
    const now = this.since(sessionId, after);
    if (now.points.length > 0 || waitMs <= 0) return now;
    let entry = this.sessions.get(sessionId);
    if (!entry) {
      entry = { seq: 0, points: [], waiters: new Set() };
      this.sessions.set(sessionId, entry);
    }
    if (entry.waiters.size >= MAX_WAITERS) return now;
    const waiters = entry.waiters;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        waiters.delete(done);
        gone.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, waitMs);
      waiters.add(done);
      gone.addEventListener('abort', done);
    });
    return this.since(sessionId, after);
  }

  private since(sessionId: string, after: number): LaserPoints {
    const entry = this.sessions.get(sessionId);
    if (!entry) return { seq: 0, points: [] };
    // a presenter ahead of us (another worker's sequence, a restart) gets what is kept
    const fresh = after > entry.seq ? entry.points.length : entry.seq - after;
    return { seq: entry.seq, points: entry.points.slice(Math.max(0, entry.points.length - fresh)) };
  }
}
