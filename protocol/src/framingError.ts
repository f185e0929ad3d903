// The one error the PDU framing modules throw; `code` is the kiosk protocol's
// error code, so the relay can forward it without translating.

export type FramingErrorCode = 'pdu-invalid' | 'pdu-too-large';

export class FramingError extends Error {
  constructor(
    readonly code: FramingErrorCode,
    message: string,
    /** Offset of the offending PDU's first byte in the stream (or frame). */
    readonly offset: number,
  ) {
    super(message);
    this.name = 'FramingError';
  }
}

export function hexByte(value: number): string {
  return `0x${value.toString(16).padStart(2, '0')}`;
}
