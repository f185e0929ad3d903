// Whole PDUs from the presenter's RDP server into WebSocket messages. The
// server writes one PDU per call, and they are small (virtual-channel chunks
// of at most 1,623 bytes: a 1080p picture is thousands of them), so each
// becomes a part of one message of at most `maxMessageBytes` (the gateway's
// frame cap): never split, never more than the cap, flushed when the cap is
// reached or when the caller's tick ends (`flush`). Pure: no socket here.

/** The gateway's cap on one binary frame from a presenter page (relay.maxFrameBytes' default). */
export const MAX_MESSAGE_BYTES = 256 * 1024;

export class PduCoalescer {
  private parts: Uint8Array[] = [];
  private bytes = 0;

  /** @param send receives each message (one or more whole PDUs, ≤ maxMessageBytes) */
  constructor(private readonly send: (message: Uint8Array) => void, private readonly maxMessageBytes = MAX_MESSAGE_BYTES) {}

  /** Bytes waiting for the next flush. */
  get pending(): number {
    return this.bytes;
  }

  /** One or more whole PDUs; a PDU larger than the cap is the caller's bug and throws. */
  push(pdus: Uint8Array): void {
    if (pdus.length === 0) return;
    if (pdus.length > this.maxMessageBytes) throw new Error(`a ${pdus.length}-byte write is larger than one message (${this.maxMessageBytes})`);
    if (this.bytes + pdus.length > this.maxMessageBytes) this.flush();
    this.parts.push(pdus);
    this.bytes += pdus.length;
  }

  flush(): void {
    if (this.bytes === 0) return;
    const parts = this.parts;
    let message: Uint8Array;
    if (parts.length === 1 && parts[0] !== undefined) message = parts[0];
    else {
      message = new Uint8Array(this.bytes);
      let offset = 0;
      for (const part of parts) {
        message.set(part, offset);
        offset += part.length;
      }
    }
    this.parts = [];
    this.bytes = 0;
    this.send(message);
  }
}
