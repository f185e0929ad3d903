// Matches responses to requests on one connection: TCP keeps order and each
// request PDU gets exactly one response PDU, so a FIFO of send times suffices.

export class RoundTripTimer {
  private sendTimes: number[] = [];
  private head = 0;

  markSent(nowNs: number): void { this.sendTimes.push(nowNs); }

  /** Pops `count` requests and reports each one's round trip in nanoseconds. */
  completed(count: number, nowNs: number, record: (roundTripNs: number) => void): void {
    for (let i = 0; i < count; i += 1) {
      const sent = this.sendTimes[this.head];
      if (sent === undefined) throw new Error('response without an outstanding request');
      this.head += 1;
      record(nowNs - sent);
    }
    if (this.head > 1024 && this.head * 2 > this.sendTimes.length) {
      this.sendTimes = this.sendTimes.slice(this.head);
      this.head = 0;
    }
  }

  outstanding(): number { return this.sendTimes.length - this.head; }

  /** Age of the oldest unanswered request, 0 when none. */
  oldestOutstandingNs(nowNs: number): number {
    const oldest = this.sendTimes[this.head];
    return oldest === undefined ? 0 : nowNs - oldest;
  }
}
