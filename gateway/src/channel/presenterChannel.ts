// Presenter sockets (/v1/sessions/{sessionId}/present, docs/kiosk-protocol.md
// "Presenter socket"): a presenter page that is a browser-source session's
// RDP server. Its first message, `present`, shows the single-use presenter
// token (under the hello deadline and the token-guess limits, like a display's
// hello); then the page waits, silent, until the display's data socket takes
// it as its server leg (presenterJoin.ts), at most as long as the session's
// token lives. From there the data socket's session owns it.
import type { WebSocket } from 'ws';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config/configSchema.js';
import type { SessionLifecycle } from '../broker/sessionLifecycle.js';
import type { TokenGuesses } from '../broker/tokenGuesses.js';
import type { GatewayBus, BusEvent } from '../cluster/gatewayBus.js';
import type { GatewayMetrics } from '../metrics/gatewayMetrics.js';
import { SessionError } from '../session/sessionError.js';
import { HandshakeReader } from './handshakeReader.js';
import { closeWithError } from './closeWithError.js';
import { raiseMaxPayload } from './frameLimit.js';
import type { PresenterLegs } from './presenterLegs.js';
import { admitPresenter } from './presenterAdmission.js';

export class PresenterChannels {
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly deps: {
    config: GatewayConfig;
    sessions: Pick<SessionLifecycle, 'openPresenterLeg'>;
    legs: PresenterLegs;
    bus: GatewayBus;
    metrics: GatewayMetrics;
    logger: Logger;
    guesses?: TokenGuesses | undefined;
    /** The socket's token was accepted (the listener's pending budget lets it go). */
    onAuthenticated?: ((socket: WebSocket) => void) | undefined;
  }) {
    deps.bus.subscribe((event) => this.onBusEvent(event));
  }

  handle(socket: WebSocket, sessionId: string, address: string | undefined): Promise<void> {
    const run = this.run(socket, sessionId, address).finally(() => this.inFlight.delete(run));
    this.inFlight.add(run);
    return run;
  }

  private async run(socket: WebSocket, sessionId: string, address: string | undefined): Promise<void> {
    const { config, legs, metrics } = this.deps;
    const log = this.deps.logger.child({ sessionId, channel: 'presenter' });
    const reader = new HandshakeReader(socket);
    try {
      const first = await reader.next(config.timeouts.helloMs);
      if (first === 'closed') return;
      if (first === 'timeout') throw new SessionError('open', 'timeout', `no present message within ${config.timeouts.helloMs} ms`, { phase: 'open' });
      if (first === 'interrupted') throw new SessionError('open', 'bad-message', 'the presenter page sent more than present before its session began');
      const admitted = await admitPresenter(this.deps, sessionId, first.kind === 'text' ? first.text : undefined, address);
      const { grant } = admitted;
      this.deps.onAuthenticated?.(socket);
      raiseMaxPayload(socket, config.relay.maxFrameBytes);
      log.info({ event: 'presenter-waiting' }, 'presenter page connected: waiting for the display');
      // Until the display takes it the page is silent: anything it sends ends its wait (a `close` politely).
      let spoke: 'close' | 'unexpected' | undefined;
      reader.expectSilence((why) => {
        spoke = why === 'close' ? 'close' : 'unexpected';
        legs.withdraw(sessionId);
      });
      const onGone = (): void => legs.withdraw(sessionId);
      socket.once('close', onGone);
      // The token lives this long: a display that has not opened its session by then never will.
      const outcome = await legs.offer(sessionId, { socket, certificate: admitted.certificate, publicKey: admitted.publicKey }, Math.max(0, grant.expiresAt - Date.now()) + config.timeouts.requestMs);
      socket.off('close', onGone);
      if (outcome === 'joined') {
        reader.detach();
        return;
      }
      reader.detach();
      if (spoke === 'close' || socket.readyState !== socket.OPEN) {
        if (socket.readyState === socket.OPEN) {
          socket.send(JSON.stringify({ type: 'ended', reason: 'server-closed' }));
          socket.close(1000, 'server-closed');
        }
        log.info({ event: 'presenter-left' }, 'presenter page left before the display joined');
        return;
      }
      if (spoke === 'unexpected') throw new SessionError('open', 'bad-message', 'the presenter page sent data before the display joined');
      if (this.stopped.delete(sessionId)) {
        socket.send(JSON.stringify({ type: 'ended', reason: 'stopped' }));
        socket.close(1000, 'stopped');
        return;
      }
      throw new SessionError('open', 'timeout', 'the display did not open the session in time', { phase: 'open' });
    } catch (error) {
      reader.detach();
      const sessionError = error instanceof SessionError ? error : new SessionError('open', 'internal', undefined, {}, { error: String(error) });
      if (sessionError.code === 'internal') log.error({ err: error }, 'internal error');
      else log.info({ event: 'presenter-error', phase: sessionError.phase, code: sessionError.code }, sessionError.message);
      metrics.errors.inc({ phase: sessionError.phase, code: sessionError.code });
      closeWithError(socket, sessionError);
    }
  }

  /** Sessions stopped while their presenter waited (the stop is the page's reason). */
  private readonly stopped = new Set<string>();

  private onBusEvent(event: BusEvent): void {
    if (event.kind !== 'stop-session') return;
    this.stopped.add(event.sessionId);
    this.deps.legs.withdraw(event.sessionId);
    // Only a waiting presenter's stop is read back; forget the rest soon.
    setTimeout(() => this.stopped.delete(event.sessionId), 1000).unref();
  }
}
