// The audit log: who did what to which display or session, and when, kept in
// the broker store (so every worker and gateway of a farm writes to one log).
// Every other part of the broker writes its decisions here; the admin API
// reads it page by page.
import type { AuditAction, AuditInput, AuditPage, BrokerStore, Requester } from './brokerStore.js';

/** Who did it, as the audit log writes it. */
export function actorName(requester: Requester | undefined): string {
  if (!requester) return 'gateway';
  return requester.address ? `${requester.kind}@${requester.address}` : requester.kind;
}

export class AuditLog {
  constructor(private readonly deps: { store: BrokerStore; clock: () => number }) {}

  /** One entry, stamped now; `by` undefined is the gateway itself. */
  async record(by: Requester | undefined, action: AuditAction, fields: Omit<AuditInput, 'at' | 'actor' | 'action'> = {}): Promise<void> {
    await this.deps.store.appendAudit({ at: this.deps.clock(), actor: actorName(by), action, ...fields });
  }

  /** Newest first; `before` is the previous page's `next`. */
  list(query: { before?: number | undefined; limit: number }): Promise<AuditPage> {
    return this.deps.store.listAudit(query);
  }
}
