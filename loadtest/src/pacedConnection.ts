// Drives one established channel: a request every interval (random phase so
// displays do not fire in lockstep), each response timed with process.hrtime.
import type { EchoChannel } from './echoChannel.js';
import type { LatencyRecorder } from './latencyHistogram.js';
import { RoundTripTimer } from './roundTripTimer.js';

export interface WindowCounters { sent: number; received: number; failures: number; lastFailure: string | undefined }

const nowNs = (): number => Number(process.hrtime.bigint());

export class PacedConnection {
  private readonly timer = new RoundTripTimer();
  private phase: NodeJS.Timeout | undefined;
  private interval: NodeJS.Timeout | undefined;
  private alive = true;

  constructor(private readonly channel: EchoChannel, private readonly request: Buffer, private readonly intervalMs: number,
    private readonly recorder: LatencyRecorder, private readonly counters: WindowCounters) {
    channel.onResponses((count) => {
      const now = nowNs();
      counters.received += count;
      try {
        this.timer.completed(count, now, (ns) => recorder.recordNanoseconds(ns));
      } catch (error) {
        this.failed(error instanceof Error ? error : new Error(String(error)));
      }
    });
    channel.onFailure((error) => this.failed(error));
  }

  start(): void {
    this.phase = setTimeout(() => {
      this.fire();
      this.interval = setInterval(() => this.fire(), this.intervalMs);
    }, Math.random() * this.intervalMs);
  }

  outstanding(): number { return this.timer.outstanding(); }

  oldestOutstandingNs(now: number): number { return this.timer.oldestOutstandingNs(now); }

  isAlive(): boolean { return this.alive; }

  close(): void {
    this.stopTimers();
    this.alive = false;
    this.channel.close();
  }

  private fire(): void {
    this.timer.markSent(nowNs());
    this.counters.sent += 1;
    this.channel.send(this.request);
  }

  private failed(error: Error): void {
    if (!this.alive) return;
    this.alive = false;
    this.stopTimers();
    this.counters.failures += 1;
    this.counters.lastFailure = error.message;
  }

  private stopTimers(): void {
    clearTimeout(this.phase);
    clearInterval(this.interval);
  }
}
