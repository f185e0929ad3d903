// The gateway's gate on input toward the presenter's computer (issue 30):
// while the presenter has not allowed people at the display to control the
// computer, the relay drops every input PDU the display sends, whatever the
// display page says or does. Pure: a frame of whole client-to-server PDUs
// (the relay's framing already guarantees whole PDUs, wholePdus.ts) in, the
// same frame without its input PDUs out. The Go data plane's twin is
// gateway/dataplane/pdu/input.go; both are held to the same byte vectors.
//
// What counts as input (MS-RDPBCGR), in the `rdp` framing mode (after the
// MCS Connect-Initial; before it no input can be sent):
// - every fast-path PDU from a client (2.2.8.1.2: the client's fast-path PDU
//   is the Fast-Path Input Event PDU, whatever events it carries);
// - a slow-path Input Event PDU (2.2.8.1.1.3): TPKT, X.224 Data, MCS Send
//   Data Request, whose user data is a Share Data PDU (pduType 7) of
//   pduType2 PDUTYPE2_INPUT (0x1C) and whose Share Control header's
//   totalLength is all of that user data. The session's TLS (the gateway is
//   the TLS client) leaves no RDP-level encryption to hide it: a Standard RDP
//   Security session could, and the gateway never negotiates one.
// Not covered: a dynamic virtual channel such as RDPEI (touch contacts),
// which travels in drdynvc static-channel PDUs; the display's client joins it
// where a server offers it (docs/ink-and-touch.md, "Multi-touch").
import { TPKT_VERSION } from './framingMode.js';

const X224_DATA = 0xf0;
/** MCS DomainMCSPDU choice 25 (SendDataRequest) in the PER-encoded first byte's top six bits. */
const MCS_SEND_DATA_REQUEST = 25;
const PDUTYPE_DATAPDU = 0x7;
const PDUTYPE2_INPUT = 0x1c;
/** Share Control header (6) + Share Data header up to pduType2 (9). */
const SHARE_DATA_PDUTYPE2_OFFSET = 14;

/** Length of the whole PDU at `start` (TPKT or fast-path), or -1 when its header is cut. */
function pduLength(bytes: Uint8Array, start: number): number {
  const first = bytes[start] ?? 0;
  if (first === TPKT_VERSION) {
    if (start + 4 > bytes.length) return -1;
    return ((bytes[start + 2] ?? 0) << 8) | (bytes[start + 3] ?? 0);
  }
  if (start + 2 > bytes.length) return -1;
  const second = bytes[start + 1] ?? 0;
  if ((second & 0x80) === 0) return second;
  if (start + 3 > bytes.length) return -1;
  return ((second & 0x7f) << 8) | (bytes[start + 2] ?? 0);
}

/** Whether the TPKT at `start` (of `length` bytes) is a slow-path Input Event PDU. */
function isSlowPathInput(bytes: Uint8Array, start: number, length: number): boolean {
  const end = start + length;
  // TPKT (4), X.224 Data: LI 2, code 0xF0, EOT (3)
  let at = start + 4;
  if (at + 3 > end || bytes[at] !== 2 || bytes[at + 1] !== X224_DATA) return false;
  at += 3;
  // MCS SendDataRequest: choice, initiator (2), channelId (2), priority/segmentation (1), PER length
  if (at + 6 > end || ((bytes[at] ?? 0) >> 2) !== MCS_SEND_DATA_REQUEST) return false;
  at += 6;
  const lengthByte = bytes[at] ?? 0;
  let userLength: number;
  if ((lengthByte & 0x80) === 0) {
    userLength = lengthByte;
    at += 1;
  } else {
    if (at + 2 > end) return false;
    userLength = ((lengthByte & 0x3f) << 8) | (bytes[at + 1] ?? 0);
    at += 2;
  }
  if (at + userLength !== end || userLength < SHARE_DATA_PDUTYPE2_OFFSET + 1) return false;
  const totalLength = (bytes[at] ?? 0) | ((bytes[at + 1] ?? 0) << 8);
  const pduType = (bytes[at + 2] ?? 0) & 0x0f;
  return totalLength === userLength && pduType === PDUTYPE_DATAPDU && bytes[at + SHARE_DATA_PDUTYPE2_OFFSET] === PDUTYPE2_INPUT;
}

/** Whether the PDU at `start` (of `length` bytes) is input toward the server. */
export function isInputPdu(bytes: Uint8Array, start: number, length: number): boolean {
  if (bytes[start] !== TPKT_VERSION) return true; // a client's fast-path PDU is input
  return isSlowPathInput(bytes, start, length);
}

export interface InputFiltered<T extends Uint8Array> {
  /** The frame without its input PDUs: the same object when none was dropped, else a new one (possibly empty). */
  readonly frame: T | Uint8Array;
  /** Input PDUs dropped. */
  readonly dropped: number;
}

/**
 * Drops the input PDUs of a frame of whole client-to-server PDUs in `rdp`
 * mode. A frame whose PDUs do not add up (the relay has checked that before)
 * is dropped whole rather than passed on.
 */
export function dropInputPdus<T extends Uint8Array>(frame: T): InputFiltered<T> {
  let at = 0;
  let dropped = 0;
  const kept: [number, number][] = [];
  while (at < frame.length) {
    const length = pduLength(frame, at);
    if (length <= 0 || at + length > frame.length) return { frame: frame.subarray(0, 0), dropped: dropped + 1 };
    if (isInputPdu(frame, at, length)) dropped += 1;
    else kept.push([at, length]);
    at += length;
  }
  if (dropped === 0) return { frame, dropped };
  const out = new Uint8Array(kept.reduce((sum, [, length]) => sum + length, 0));
  let to = 0;
  for (const [start, length] of kept) {
    out.set(frame.subarray(start, start + length), to);
    to += length;
  }
  return { frame: out, dropped };
}
