// What each cluster worker holds in the shared broker store: the sessions it
// claimed and has not ended, and the displays whose control socket it
// recorded. A worker killed outright (a crash, the OOM killer, kill -9)
// cannot end or clear them itself; the primary reads them from here to do
// it for the dead worker. Pure bookkeeping, fed with each store request a
// worker made and the store's answer.
import type { StoreRequest } from './ipcBrokerStore.js';

export interface HeldByWorker {
  sessions: string[];
  presence: { displayId: string; owner: string }[];
}

export class WorkerHoldings {
  private readonly sessions = new Map<number, Set<string>>();
  /** displayId → the worker and owner id that recorded it last. */
  private readonly presence = new Map<string, { workerId: number; owner: string }>();

  /** A request of `workerId` answered `value` (only answered requests count). */
  noteAnswered(workerId: number, request: StoreRequest['lanternaStore'], value: unknown): void {
    const [first, second] = request.args as [unknown, unknown];
    switch (request.op) {
      case 'claimSession':
        if (value === true && typeof first === 'string') this.sessionsOf(workerId).add(first);
        break;
      case 'updateSession':
        if (typeof first === 'string' && isEnd(second)) for (const held of this.sessions.values()) held.delete(first);
        break;
      case 'setPresence':
        if (isPresence(first)) this.presence.set(first.displayId, { workerId, owner: first.owner });
        break;
      case 'clearPresence':
        if (typeof first === 'string' && this.presence.get(first)?.owner === second) this.presence.delete(first);
        break;
      default:
        break;
    }
  }

  /** Forgets the worker and returns what it still held. */
  release(workerId: number): HeldByWorker {
    const sessions = [...(this.sessions.get(workerId) ?? [])];
    this.sessions.delete(workerId);
    const presence: HeldByWorker['presence'] = [];
    for (const [displayId, holder] of this.presence) {
      if (holder.workerId !== workerId) continue;
      presence.push({ displayId, owner: holder.owner });
      this.presence.delete(displayId);
    }
    return { sessions, presence };
  }

  private sessionsOf(workerId: number): Set<string> {
    let held = this.sessions.get(workerId);
    if (!held) { held = new Set(); this.sessions.set(workerId, held); }
    return held;
  }
}

function isEnd(update: unknown): boolean {
  return typeof update === 'object' && update !== null && (update as { state?: unknown }).state === 'ended';
}

function isPresence(value: unknown): value is { displayId: string; owner: string } {
  return typeof value === 'object' && value !== null
    && typeof (value as { displayId?: unknown }).displayId === 'string' && typeof (value as { owner?: unknown }).owner === 'string';
}
