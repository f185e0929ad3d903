// Which PDU kinds may appear on one direction of a session, and when that
// changes. During NLA the byte 0x30 starts a DER TSRequest, while after it the
// same byte is a fast-path header, so the framer must know the phase.

/**
 * - `rdp`: TPKT and fast-path (TLS security, or after NLA)
 * - `nla`: TPKT and DER TSRequest (HYBRID/HYBRID_EX before the first TPKT)
 * - `nla-ex`: as `nla`, plus the server's 4-byte Early User
 *   Authorization Result (HYBRID_EX, server to client)
 */
export type FramingMode = 'rdp' | 'nla' | 'nla-ex';

export const FRAMING_MODES: readonly FramingMode[] = ['rdp', 'nla', 'nla-ex'];

export function assertFramingMode(mode: FramingMode): void {
  if (!FRAMING_MODES.includes(mode)) throw new RangeError(`unknown framing mode ${JSON.stringify(mode)}`);
}

export type SecurityProtocolName = 'ssl' | 'hybrid' | 'hybrid-ex';
export type RelayDirection = 'client-to-server' | 'server-to-client';

/** The mode a direction starts in right after the TLS handshake. */
export function framingModeFor(protocol: SecurityProtocolName, direction: RelayDirection): FramingMode {
  if (protocol === 'ssl') return 'rdp';
  if (protocol === 'hybrid-ex' && direction === 'server-to-client') return 'nla-ex';
  return 'nla';
}

/**
 * The mode after `pdu` passed. NLA ends with the client's first TPKT (MCS
 * Connect-Initial), and the server sends no TPKT before answering it, so
 * the first TPKT in either direction ends NLA there.
 */
export function nextFramingMode(mode: FramingMode, pdu: Uint8Array): FramingMode {
  return modeAfterPduStartingWith(mode, pdu[0] ?? 0);
}

/** nextFramingMode from the PDU's first byte alone (for readers that keep no view of it). */
export function modeAfterPduStartingWith(mode: FramingMode, firstByte: number): FramingMode {
  return mode !== 'rdp' && firstByte === TPKT_VERSION ? 'rdp' : mode;
}

export const TPKT_VERSION = 0x03;
