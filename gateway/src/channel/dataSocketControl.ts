// Text frames on a data socket once the relay runs: the kiosk's `ping` (its
// HUD times the round trip to the gateway) and `close`. They are session
// control, not RDP, so they are judged here and never enter the pump.
// Pure: text and a time in, a verdict out.
import { SessionError } from '../session/sessionError.js';
import { parseKioskDataMessage, type PongMessage } from '@lanterna/protocol';

/** Pings closer together than this get no answer (the display sends one every few seconds). */
export const MIN_PING_INTERVAL_MS = 200;

export type DataControlVerdict =
  | { action: 'pong'; reply: string }
  | { action: 'ignore' }
  | { action: 'close' }
  | { action: 'fail'; error: SessionError };

const IGNORE: DataControlVerdict = { action: 'ignore' };
const CLOSE: DataControlVerdict = { action: 'close' };

export class DataSocketControl {
  private lastPong = -Infinity;

  /**
   * A ping is not RDP traffic, so it does not keep an idle session alive, and
   * only its number is echoed: nothing else the display sent is reflected. At
   * most one pong per MIN_PING_INTERVAL_MS: a flood of pings costs nothing more.
   */
  judge(text: string, now: number): DataControlVerdict {
    const parsed = parseKioskDataMessage(text);
    const message = parsed.ok ? parsed.message : undefined;
    if (message?.type === 'close') return CLOSE;
    if (message?.type === 'ping' && Number.isFinite(message.t)) {
      if (now - this.lastPong < MIN_PING_INTERVAL_MS) return IGNORE;
      this.lastPong = now;
      const pong: PongMessage = { type: 'pong', t: message.t };
      return { action: 'pong', reply: JSON.stringify(pong) };
    }
    return { action: 'fail', error: new SessionError('relay', 'bad-message', 'the display sent an unexpected control message during the session') };
  }
}
