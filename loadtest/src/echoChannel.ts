// What a paced connection needs from a client, whichever relay it goes through.

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
