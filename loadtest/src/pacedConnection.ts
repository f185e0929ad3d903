// Drives one established channel: a request (or a burst of them) every
// interval (random phase so displays do not fire in lockstep), each response
// timed with process.hrtime.
//
// Each send is scheduled on the connection's own timeline (start + k·interval),
// not with setInterval: Node re-arms every interval timer that fires in one
// pass of the event loop from the same cached "now", so after any stall the
// late timers stay aligned for good, and over minutes the random phases
// collapse into a few clusters (300 displays into 2 within 30 s of 15 ms
// stalls): the generator then offers synchronized bursts, not the traffic it
// claims. Sends missed during a stall are skipped, not caught up.
import type { EchoChannel } from './echoChannel.js';
import type { LatencyRecorder } from './latencyHistogram.js';
import { RoundTripTimer } from './roundTripTimer.js';

export interface WindowCounters { sent: number; received: number; failures: number; lastFailure: string | undefined }

export interface PacingOptions {
  /** Requests sent back to back each interval (a burst); 1 by default. */
  burst?: number;
  /** Every response's round trip and arrival time (ns), for per-display figures. */
  onResponse?: (roundTripNs: number, nowNs: number) => void;
  /** Called once when the channel breaks (after the failure is counted). */
  onFailure?: (error: Error) => void;
}

const nowNs = (): number => Number(process.hrtime.bigint());

export class PacedConnection {
  private readonly timer = new RoundTripTimer();
  private timeout: NodeJS.Timeout | undefined;
  /** When the next send is due (performance.now() ms) on this connection's timeline. */
  private nextAt = 0;
  private readonly tick = (): void => {
    this.fire();
    // a send that broke the channel has stopped the pacing
    if (!this.alive) return;
    const now = performance.now();
    this.nextAt += this.intervalMs;
    if (this.nextAt <= now) this.nextAt += Math.ceil((now - this.nextAt) / this.intervalMs) * this.intervalMs;
    this.timeout = setTimeout(this.tick, this.nextAt - now);
  };
  private alive = true;

  private readonly burst: number;

  constructor(private readonly channel: EchoChannel, private readonly request: Buffer, private readonly intervalMs: number,
    private readonly recorder: LatencyRecorder, private readonly counters: WindowCounters, private readonly options: PacingOptions = {}) {
    this.burst = Math.max(1, options.burst ?? 1);
    const onResponse = options.onResponse;
    channel.onResponses((count) => {
      const now = nowNs();
      counters.received += count;
      try {
        this.timer.completed(count, now, onResponse
          ? (ns) => { recorder.recordNanoseconds(ns); onResponse(ns, now); }
          : (ns) => recorder.recordNanoseconds(ns));
      } catch (error) {
        this.failed(error instanceof Error ? error : new Error(String(error)));
      }
    });
    channel.onFailure((error) => this.failed(error));
  }

  /** Starts pacing after `delayMs` (default: a random phase within one interval). */
  start(delayMs = Math.random() * this.intervalMs): void {
    this.nextAt = performance.now() + delayMs;
    this.timeout = setTimeout(this.tick, delayMs);
  }

  /** When the next send is due (performance.now() ms): the connection's timeline, whatever the loop's delays. */
  nextSendAt(): number { return this.nextAt; }

  outstanding(): number { return this.timer.outstanding(); }

  oldestOutstandingNs(now: number): number { return this.timer.oldestOutstandingNs(now); }

  isAlive(): boolean { return this.alive; }

  close(): void {
    this.stopTimers();
    this.alive = false;
    this.channel.close();
  }

  private fire(): void {
    const now = nowNs();
    for (let i = 0; i < this.burst; i += 1) {
      this.timer.markSent(now);
      this.channel.send(this.request);
    }
    this.counters.sent += this.burst;
  }

  private failed(error: Error): void {
    if (!this.alive) return;
    this.alive = false;
    this.stopTimers();
    this.counters.failures += 1;
    this.counters.lastFailure = error.message;
    this.options.onFailure?.(error);
  }

  private stopTimers(): void {
    clearTimeout(this.timeout);
  }
}
