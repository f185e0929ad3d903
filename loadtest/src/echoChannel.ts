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

/** Options every WebSocket client of the load test shares. */
export const loadClientSocketOptions = {
  perMessageDeflate: false,
  skipUTF8Validation: true,
  // an all-zero mask lets ws skip masking: the generator measures the relay,
  // and the frames' masking protects nothing between two loopback processes
  generateMask: (): void => { /* keep the zero mask */ },
  maxPayload: 1024 * 1024,
} as const;
