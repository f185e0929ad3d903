// Certificate pins that no longer match: the certificate policy reports a
// server whose certificate differs from its first-use pin, the broker keeps
// the conflict in the store (every gateway's admin sees it) until an admin
// clears the pin, and both are audited.
import type { BrokerStore, PinConflict, Requester } from './brokerStore.js';
import type { AuditLog } from './auditLog.js';

export class PinConflicts {
  constructor(private readonly deps: { store: BrokerStore; auditLog: AuditLog }) {}

  list(): Promise<PinConflict[]> {
    return this.deps.store.listPinConflicts();
  }

  /** A server's certificate differs from its first-use pin: kept for the admin to see and clear. */
  async changed(conflicts: PinConflict[]): Promise<void> {
    await this.deps.store.recordPinConflicts(conflicts);
    await Promise.all(conflicts.map((conflict) => this.deps.auditLog.record(undefined, 'pin-changed', {
      displayId: conflict.displayId, detail: { key: conflict.key, pinned: conflict.pinned, seen: conflict.seen },
    })));
  }

  /** An admin cleared a pin (the pin store has forgotten it): its conflict goes too. */
  async cleared(key: string, by?: Requester): Promise<void> {
    await this.deps.store.clearPinConflicts([key]);
    await this.deps.auditLog.record(by, 'pin-cleared', { detail: { key } });
  }
}
