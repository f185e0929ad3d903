// Where a presenter page's socket (authenticated, silent) meets the display's
// data socket of the same browser-source session (docs/browser-presenter.md).
// Either may come first: the presenter waits here until the display's
// Connection Request takes it, or its own deadline; the display waits for the
// presenter up to the connect deadline. At most one presenter per session
// (its token is single-use). Within one gateway process: a display and its
// presenter must reach the same process (see docs/browser-presenter.md).
import type { WebSocket } from 'ws';

/** A presenter's socket, authenticated, with what the display's `secured` will say of it. */
export interface PresenterLeg {
  readonly socket: WebSocket;
  /** Base64 DER of the page's certificate, when its `present` message reported one. */
  readonly certificate?: string | undefined;
  /** Base64 SubjectPublicKey of that certificate. */
  readonly publicKey: string;
}

/** How a presenter's wait ended: the display took it, or not. */
export type PresenterWait = 'joined' | 'timeout' | 'withdrawn';

interface Waiting {
  readonly leg: PresenterLeg;
  readonly settle: (outcome: PresenterWait) => void;
}

export class PresenterLegs {
  private readonly presenters = new Map<string, Waiting>();
  private readonly displays = new Map<string, (leg: PresenterLeg) => void>();

  /** Presenters waiting for their display (a gauge for tests and metrics). */
  get waitingCount(): number {
    return this.presenters.size;
  }

  /**
   * The presenter's socket is ready: handed to a waiting display at once, or
   * kept until one asks (`take`), `deadlineMs` passes, or `withdraw`.
   */
  offer(sessionId: string, leg: PresenterLeg, deadlineMs: number): Promise<PresenterWait> {
    const display = this.displays.get(sessionId);
    if (display) {
      this.displays.delete(sessionId);
      display(leg);
      return Promise.resolve('joined');
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => settle('timeout'), deadlineMs);
      const settle = (outcome: PresenterWait): void => {
        clearTimeout(timer);
        if (this.presenters.get(sessionId)?.leg === leg) this.presenters.delete(sessionId);
        resolve(outcome);
      };
      // A second presenter for one session cannot pass the single-use claim; should one, the first keeps its place.
      if (this.presenters.has(sessionId)) {
        clearTimeout(timer);
        resolve('withdrawn');
        return;
      }
      this.presenters.set(sessionId, { leg, settle });
    });
  }

  /** The presenter left or was stopped while it waited. */
  withdraw(sessionId: string): void {
    this.presenters.get(sessionId)?.settle('withdrawn');
  }

  /**
   * The display's Connection Request wants its presenter: resolves with the
   * leg, or undefined when `deadlineMs` passes or `signal` aborts first.
   */
  take(sessionId: string, deadlineMs: number, signal: AbortSignal): Promise<PresenterLeg | undefined> {
    const waiting = this.presenters.get(sessionId);
    if (waiting) {
      waiting.settle('joined');
      return Promise.resolve(waiting.leg);
    }
    if (signal.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const done = (leg: PresenterLeg | undefined): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        if (this.displays.get(sessionId) === done) this.displays.delete(sessionId);
        resolve(leg);
      };
      const onAbort = (): void => done(undefined);
      const timer = setTimeout(onAbort, deadlineMs);
      signal.addEventListener('abort', onAbort, { once: true });
      this.displays.set(sessionId, done);
    });
  }
}
