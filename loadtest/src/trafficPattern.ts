// The traffic each simulated display offers: one request of `upBytes` every
// `intervalMs`, answered by `downBytes` (the whitepaper's packet size and
// frequency). Sizes are whole TPKT PDUs on the wire, headers included.

export interface TrafficPattern {
  upBytes: number;
  downBytes: number;
  intervalMs: number;
}

export function describePattern(pattern: TrafficPattern): string {
  const sizes = pattern.upBytes === pattern.downBytes ? `${pattern.upBytes} B each way` : `${pattern.upBytes} B up / ${pattern.downBytes} B down`;
  return `${sizes} every ${pattern.intervalMs} ms`;
}
