// One account of the display sessions this process carries, whichever engine
// relays them: the Node engine (dataChannel.ts) calls it from its own socket
// handling, the native one (../dataplane/nativeDataChannels.ts) from the data
// plane's notices. The broker's calls, the session metrics and the log lines
// of a session's life are written here once, so the admin's view, /metrics
// and the logs read the same on either engine.
import type { Logger } from 'pino';
import type { SessionGrant } from '../session/sessionToken.js';
import type { SessionLifecycle } from '../broker/sessionLifecycle.js';
import type { SessionSample } from '../broker/brokerStore.js';
import type { SessionError } from '../session/sessionError.js';
import type { GatewayMetrics } from '../metrics/gatewayMetrics.js';
import { SessionRates, type SessionFigures } from './sessionRates.js';

/** A session's error as either engine reports it (a SessionError here, its JSON from the data plane). */
export interface LedgerError {
  readonly phase: string;
  readonly code: string;
  readonly message: string;
  readonly detail: Record<string, unknown>;
  readonly internal: Record<string, unknown>;
  /** What was thrown, for an internal error's log line. */
  readonly cause?: unknown;
}

/** How a session (or a socket that never got one) ended. */
export interface LedgerEnd {
  /** Why it ended without an error (client-closed, stopped, gateway-shutdown, …); 'error' with one. */
  readonly reason: string;
  readonly error?: LedgerError | undefined;
  /** Its server leg was secured: it counted as active, and its end is a session's end. */
  readonly secured: boolean;
  /** How long it relayed, for the log. */
  readonly seconds?: number | undefined;
}

/** One session in a sample: its running totals while it relays, none while its handshake runs. */
export interface LedgerEntry {
  readonly grant: SessionGrant;
  readonly totals?: SessionFigures | undefined;
}

export interface SessionLedgerDeps {
  sessions: Pick<SessionLifecycle, 'sessionSecured' | 'sessionEnded' | 'sampleSessions'>;
  metrics: Pick<GatewayMetrics, 'activeSessions' | 'sessionsTotal' | 'errors'>;
  logger: Logger;
}

/** A SessionError as the ledger reads it. */
export function ledgerError(error: SessionError): LedgerError {
  return { phase: error.phase, code: error.code, message: error.message, detail: error.detail, internal: error.internal };
}

const NO_TOTALS: SessionFigures = { bytesToDisplay: 0, bytesToServer: 0, pdusToDisplay: 0, framesToDisplay: 0 };

export class SessionLedger {
  /** Each relaying session's totals at the previous sample, for the rates. */
  private readonly rates = new SessionRates();

  constructor(private readonly deps: SessionLedgerDeps) {}

  /**
   * The broker granted a data socket its session: sampled at once (not
   * awaited), so from here the display's booking is a short lease that each
   * later sample renews.
   */
  opened(grant: SessionGrant): void {
    this.sample([{ grant }]);
  }

  /** The server leg is secured: the session counts as active from here. */
  secured(grant: SessionGrant, log: Logger): void {
    const { metrics, sessions } = this.deps;
    metrics.activeSessions.inc();
    metrics.sessionsTotal.inc();
    sessions.sessionSecured(grant.sessionId).catch((error: unknown) => log.warn({ err: error }, 'the broker could not record the session as active'));
  }

  /**
   * A data socket's end, logged once and counted; with a grant, the broker
   * records the session's end (a socket refused before its grant has none).
   */
  ended(grant: SessionGrant | undefined, end: LedgerEnd, log: Logger): void {
    const { metrics, sessions } = this.deps;
    const { error, secured, seconds } = end;
    if (error) {
      metrics.errors.inc({ phase: error.phase, code: error.code });
      if (secured) log.info({ event: 'session-ended', reason: 'error', code: error.code, detail: error.detail, internal: error.internal, seconds }, error.message);
      else if (error.code === 'internal') log.error({ err: error.cause, internal: error.internal }, 'internal error');
      else log.info({ event: 'session-error', phase: error.phase, code: error.code, detail: error.detail, internal: error.internal }, error.message);
    } else if (secured) {
      log.info({ event: 'session-ended', reason: end.reason, seconds }, 'session ended');
    } else {
      log.info({ event: 'client-gone', reason: end.reason }, 'display left during the handshake');
    }
    if (!grant) return;
    if (secured) metrics.activeSessions.dec();
    this.rates.forget(grant.sessionId);
    sessions.sessionEnded(grant, error ? error.code : end.reason).catch((failure: unknown) => log.warn({ err: failure }, 'the broker could not record the session end'));
  }

  /**
   * One call to the broker for these sessions: each relaying one's figures
   * and rates since its previous sample (the admin's live view), zeros for
   * one in its handshake; every one's booking renewed. Never per message.
   */
  sample(entries: readonly LedgerEntry[], now = Date.now()): void {
    if (entries.length === 0) return;
    const samples: SessionSample[] = entries.map(({ grant, totals }) => {
      const { sessionId, displayId } = grant;
      if (!totals) return { sessionId, displayId, ...NO_TOTALS, bytesPerSecond: 0, framesPerSecond: 0, sampledAt: now };
      const { bytesToDisplay, bytesToServer, pdusToDisplay, framesToDisplay } = totals;
      const figures = { bytesToDisplay, bytesToServer, pdusToDisplay, framesToDisplay };
      return { sessionId, displayId, ...figures, ...this.rates.next(sessionId, figures, now), sampledAt: now };
    });
    this.deps.sessions.sampleSessions(samples).catch((error: unknown) => this.deps.logger.debug({ err: error }, 'session sample not recorded'));
  }
}
