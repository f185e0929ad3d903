// The broker's parts, composed once over one store (the gateway's composition
// root and the broker's tests call this): the display registry, presence, the
// projection desk, minting, the session lifecycle, resume, the audit log and
// changed pins. Callers take the part they use, never the whole. No socket
// and no timer anywhere in them: the clock, the name resolver, the sealer and
// the event publisher are injected.
import type { SessionTokenSigner } from '../session/sessionToken.js';
import type { SealedBox } from '../session/sealedBox.js';
import type { TargetPolicy } from '../policy/targetPolicy.js';
import type { DisplayDirectory } from './displayDirectory.js';
import type { BrokerStore } from './brokerStore.js';
import type { PublishEvent } from './brokerEvents.js';
import type { ResolveTarget } from './targetChoice.js';
import { AuditLog } from './auditLog.js';
import { PinConflicts } from './pinConflicts.js';
import { DisplayRegistry } from './displayRegistry.js';
import { OnlineDisplays } from './onlineDisplays.js';
import { SessionMint } from './sessionMint.js';
import { ProjectionDesk } from './projectionDesk.js';
import { SessionLifecycle } from './sessionLifecycle.js';
import { SessionResume } from './sessionResume.js';

export interface BrokerTimeouts {
  /** How long a minted session's token opens it, and so how long its display's booking waits for its data socket to claim it. */
  sessionTokenMs: number;
  /** Pause before a signage display is projected again; doubles while sessions fail at once. */
  reprojectMs: number;
  reprojectMaxMs: number;
  /** A display back online this soon after its session was last seen alive gets it projected again. */
  resumeGraceMs?: number | undefined;
}

export interface BrokerDeps {
  directory: DisplayDirectory;
  store: BrokerStore;
  signer: SessionTokenSigner;
  policy: TargetPolicy;
  /** Resolves a target's name for the policy check, with its own deadline. */
  resolveTarget: ResolveTarget;
  publish: PublishEvent;
  timeouts: BrokerTimeouts;
  /** Seals what a resume needs (credentials); without it nothing is kept and nothing resumes. */
  sealer?: SealedBox | undefined;
  clock?: () => number;
  /** This gateway instance's tag (presenceOwner.ts): presences it records name it. */
  instanceTag?: string | undefined;
}

export interface BrokerParts {
  readonly auditLog: AuditLog;
  readonly pinConflicts: PinConflicts;
  readonly displays: DisplayRegistry;
  readonly presence: OnlineDisplays;
  readonly projections: ProjectionDesk;
  readonly sessions: SessionLifecycle;
  readonly resume: SessionResume;
}

export function composeBroker(deps: BrokerDeps): BrokerParts {
  const { directory, store, signer, publish, timeouts, sealer } = deps;
  // defaulted here once, so every part reads the same clock and none defaults its own
  const clock = deps.clock ?? Date.now;
  const auditLog = new AuditLog({ store, clock });
  const displays = new DisplayRegistry({ directory, store, publish, auditLog, clock });
  const presence = new OnlineDisplays({ store, publish, clock, instanceTag: deps.instanceTag });
  const mint = new SessionMint({ store, signer, publish, sessionTokenMs: timeouts.sessionTokenMs, sealer, clock });
  const sessions = new SessionLifecycle({ store, signer, publish, auditLog, sessionTokenMs: timeouts.sessionTokenMs, clock });
  const projections = new ProjectionDesk({
    directory, store, policy: deps.policy, resolveTarget: deps.resolveTarget, publish, displays, presence, mint, touch: sessions, auditLog, timeouts, clock,
  });
  return {
    auditLog,
    pinConflicts: new PinConflicts({ store, auditLog }),
    displays,
    presence,
    projections,
    sessions,
    resume: new SessionResume({ store, mint, projections, publish, auditLog, sealer, timeouts, clock }),
  };
}
