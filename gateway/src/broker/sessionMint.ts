// Minting: a session's record, its single-use token, the intent a resume
// needs (sealed) and the `project` the display's control socket carries —
// the one place a session comes into being, whether a request booked it
// (projectionDesk.ts) or a resume did (sessionResume.ts). The booking is the
// caller's: a mint never decides whether the display is free.
import type { Credentials, TargetConfig } from '../config/configSchema.js';
import type { SessionTokenSigner } from '../session/sessionToken.js';
import type { SealedBox } from '../session/sealedBox.js';
import type { AssistanceSettings, SessionSettings } from '@lanterna/protocol';
import type { BrokerStore, Requester } from './brokerStore.js';
import type { PublishEvent } from './brokerEvents.js';

export interface ProjectionRequest {
  displayId: string;
  target: TargetConfig;
  credentials?: Credentials | undefined;
  settings?: SessionSettings | undefined;
  /** A Remote Assistance invitation the client answers instead of credentials. */
  assistance?: AssistanceSettings | undefined;
  requestedBy?: Requester | undefined;
  /** The presenter page is the server (its socket joins the display's session); `target` is then BROWSER_TARGET. */
  browser?: boolean | undefined;
  /** The presenter's request (roomRequests.ts) it answers; its session then has the request's id. */
  requestId?: string | undefined;
}

/**
 * What a browser-source session names as its target: a label for the
 * display's `project` message and the admin's views, never dialled.
 */
export const BROWSER_TARGET = { host: 'browser', port: 3389, name: "the presenter's browser" } as const;

export interface SessionMintDeps {
  store: BrokerStore;
  signer: SessionTokenSigner;
  publish: PublishEvent;
  /** How long a minted session's token opens it. */
  sessionTokenMs: number;
  /** Seals what a resume needs (credentials); without it nothing is kept and nothing resumes. */
  sealer?: SealedBox | undefined;
  /** Ms since the epoch; composeBroker gives every part the same one. */
  clock: () => number;
}

export class SessionMint {
  constructor(private readonly deps: SessionMintDeps) {}

  /** Mints `sessionId` (already booked into `slot` by the caller) and tells the display, wherever its control socket lives. */
  async mint(sessionId: string, request: ProjectionRequest, slot = 0): Promise<void> {
    const now = this.deps.clock();
    const expiresAt = now + this.deps.sessionTokenMs;
    const sessionToken = this.deps.signer.sign({ sessionId, displayId: request.displayId, target: request.target, expiresAt, ...(request.browser === true ? { source: 'browser' as const } : {}) });
    const { host, port, name } = request.target;
    const { store, sealer } = this.deps;
    await store.putSession({
      sessionId, displayId: request.displayId, target: { host, port, name }, state: 'minted', mintedAt: now, expiresAt,
      ...(request.requestedBy ? { requestedBy: request.requestedBy } : {}),
      ...(slot === 0 ? {} : { slot }), ...(request.requestId === undefined ? {} : { requestId: request.requestId }),
    });
    // A browser source cannot be resumed through another gateway: its presenter socket ends with this one.
    if (sealer && request.browser !== true) {
      await store.setIntent({
        displayId: request.displayId, sessionId, target: { host, port, name }, since: now, requestedBy: request.requestedBy,
        ...(slot === 0 ? {} : { slot }), ...(request.requestId === undefined ? {} : { requestId: request.requestId }),
        sealed: sealer.seal({ credentials: request.credentials, settings: request.settings, assistance: request.assistance }),
      });
    }
    this.deps.publish({
      kind: 'project', displayId: request.displayId,
      message: {
        type: 'project', sessionId, sessionToken,
        target: { name: name ?? `${host}:${port}`, host, port },
        ...(request.credentials ? { credentials: request.credentials } : {}),
        ...(request.settings ?? request.assistance ? { settings: { ...request.settings, ...(request.assistance ? { assistance: request.assistance } : {}) } } : {}),
        // The display keeps the room PIN in view over its own signage (it gives way to presenters); the control channel drops it for displays that did not ask.
        ...(request.requestedBy?.kind === 'signage' ? { signage: true } : {}),
        // The control channel sends it only to displays that announced `slots` (and slot 0 needs no word).
        ...(slot === 0 ? {} : { slot }),
        // A browser presenter's page is the server: the display's touch is a laser pointer there (issue 30).
        ...(request.browser === true ? { source: 'browser' as const } : {}),
      },
    });
    this.deps.publish({ kind: 'slots-changed', displayId: request.displayId });
  }
}
