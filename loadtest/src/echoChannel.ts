// What a paced connection needs from a client, whichever relay it goes through.
import type { PduStreamCounter } from '@lanterna/protocol';

export interface EchoChannel {
  /** Sends one whole request PDU. */
  send(pdu: Buffer): void;
  /** Called with how many whole response PDUs each arrival completed. */
  onResponses(listener: (count: number) => void): void;
  /** Called once when the channel breaks after it was established. */
  onFailure(listener: (error: Error) => void): void;
  close(): void;
}

/**
 * The once-only end every channel shares: the first failure (unless the client
 * closed on purpose) reaches the listener and tears the transport down.
 */
export class ChannelEnd {
  private listener: (error: Error) => void = () => { /* none yet */ };
  private ended = false;

  constructor(private readonly teardown: () => void) {}

  onFailure(listener: (error: Error) => void): void {
    this.listener = listener;
  }

  fail(error: Error): void {
    if (this.ended) return;
    this.ended = true;
    this.listener(error);
    this.teardown();
  }

  /**
   * A receive handler for the channel's bytes: the whole PDUs `counter`
   * completes go to `listener`; bytes that break the framing fail the channel.
   */
  counting(counter: PduStreamCounter, listener: (completed: number) => void): (bytes: Buffer) => void {
    return (bytes) => {
      try {
        const completed = counter.push(bytes);
        if (completed > 0) listener(completed);
      } catch (error) { this.fail(error instanceof Error ? error : new Error(String(error))); }
    };
  }

  /** A deliberate close: later transport errors are not failures. */
  closing(): void {
    this.ended = true;
  }
}

/** Options every WebSocket client of the load test shares. */
export const loadClientSocketOptions = {
  perMessageDeflate: false,
  skipUTF8Validation: true,
  // an all-zero mask lets ws skip masking: the generator measures the relay,
  // and the frames' masking protects nothing between two loopback processes
  generateMask: (): void => { /* keep the zero mask */ },
  maxPayload: 1024 * 1024,
} as const;
