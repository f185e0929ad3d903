// When each frame still on its way to the kiosk was read from the server, in
// send order. WebSocket send callbacks complete in that order, so one shared
// callback can time every frame without a closure per send.

export class SendLatencyQueue {
  private times: Float64Array;
  private head = 0;
  private count = 0;

  constructor(initialCapacity = 64) {
    this.times = new Float64Array(initialCapacity);
  }

  get size(): number {
    return this.count;
  }

  push(readAt: number): void {
    if (this.count === this.times.length) this.grow();
    this.times[(this.head + this.count) % this.times.length] = readAt;
    this.count += 1;
  }

  /** The oldest time, removed; undefined when empty. */
  shift(): number | undefined {
    if (this.count === 0) return undefined;
    const value = this.times[this.head];
    this.head = (this.head + 1) % this.times.length;
    this.count -= 1;
    return value;
  }

  /** Doubles in place of dropping: the queue is as long as the frames the kiosk socket holds, which backpressure bounds. */
  private grow(): void {
    const bigger = new Float64Array(this.times.length * 2);
    for (let i = 0; i < this.count; i += 1) bigger[i] = this.times[(this.head + i) % this.times.length] ?? 0;
    this.times = bigger;
    this.head = 0;
  }
}
