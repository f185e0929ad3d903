// rdpsnd PDUs as a server sends them on the static channel, read from and
// written into the server-to-client PDUs that presenterPipe.mjs relays: the
// slow-path frame (TPKT, X.224 data, MCS Send Data Indication), the virtual
// channel PDU header ([MS-RDPBCGR] 2.2.6.1.1) and the rdpsnd header
// ([MS-RDPEA] 2.2.1). TLS is the gateway's, so there is no security header.

export const CHANNEL_FLAG_FIRST = 0x1;
export const CHANNEL_FLAG_LAST = 0x2;
export const SNDC_FORMATS = 0x07;
export const SNDC_WAVE2 = 0x0d;
/** FreeRDP's (and [MS-RDPBCGR]'s) chunk size for static channel data. */
const CHUNK = 1600;

/**
 * The channel data of one server PDU when it is a Send Data Indication:
 * { initiator, channelId, totalLength, flags, data } (data: this chunk), or null.
 * @param {Uint8Array} bytes
 */
export function channelChunk(bytes) {
  if (bytes.length < 15 || bytes[0] !== 3 || bytes[4] !== 2 || bytes[5] !== 0xf0 || bytes[6] !== 0x80) return null;
  if (bytes[7] >> 2 !== 26) return null; // MCS SDin
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const initiator = view.getUint16(8);
  const channelId = view.getUint16(10);
  let at = 13;
  let length = bytes[at];
  if (length & 0x80) {
    length = ((length & 0x7f) << 8) | bytes[at + 1];
    at += 2;
  } else {
    at += 1;
  }
  if (at + 8 > bytes.length) return null;
  return {
    initiator, channelId,
    totalLength: view.getUint32(at, true),
    flags: view.getUint32(at + 4, true),
    data: bytes.subarray(at + 8, at + length),
  };
}

/**
 * The server PDUs that carry `payload` on a static channel: chunks of 1600
 * bytes, each with the whole length (or `claimedLength`) and FIRST/LAST flags.
 * @param {{ initiator: number, channelId: number }} channel
 * @param {Uint8Array} payload
 * @param {{ claimedLength?: number }} [options]
 * @returns {Uint8Array[]}
 */
export function channelPdus(channel, payload, { claimedLength } = {}) {
  const pdus = [];
  for (let offset = 0; offset < payload.length || offset === 0; offset += CHUNK) {
    const chunk = payload.subarray(offset, Math.min(payload.length, offset + CHUNK));
    let flags = 0;
    if (offset === 0) flags |= CHANNEL_FLAG_FIRST;
    if (offset + CHUNK >= payload.length) flags |= CHANNEL_FLAG_LAST;
    const userData = chunk.length + 8;
    const lengthBytes = userData < 0x80 ? [userData] : [0x80 | (userData >> 8), userData & 0xff];
    const size = 13 + lengthBytes.length + userData;
    const pdu = new Uint8Array(size);
    const view = new DataView(pdu.buffer);
    pdu.set([3, 0], 0);
    view.setUint16(2, size);
    pdu.set([2, 0xf0, 0x80, 26 << 2], 4);
    view.setUint16(8, channel.initiator);
    view.setUint16(10, channel.channelId);
    pdu[12] = 0x70;
    pdu.set(lengthBytes, 13);
    const at = 13 + lengthBytes.length;
    view.setUint32(at, claimedLength ?? payload.length, true);
    view.setUint32(at + 4, flags, true);
    pdu.set(chunk, at + 8);
    pdus.push(pdu);
    if (payload.length === 0) break;
  }
  return pdus;
}

/** An rdpsnd PDU: msgType, bPad, BodySize (the body's length unless `bodySize` says otherwise), body. */
export function rdpsndPdu(msgType, body, { bodySize } = {}) {
  const pdu = new Uint8Array(4 + body.length);
  pdu[0] = msgType;
  new DataView(pdu.buffer).setUint16(2, bodySize ?? body.length, true);
  pdu.set(body, 4);
  return pdu;
}

/** A Wave2 PDU ([MS-RDPEA] 2.2.3.10): wTimeStamp, wFormatNo, cBlockNo, bPad×3, dwAudioTimeStamp, data. */
export function wave2Pdu({ timestamp, formatNo, block, audioTimestamp = 0, data }) {
  const body = new Uint8Array(12 + data.length);
  const view = new DataView(body.buffer);
  view.setUint16(0, timestamp & 0xffff, true);
  view.setUint16(2, formatNo, true);
  body[4] = block & 0xff;
  view.setUint32(8, audioTimestamp >>> 0, true);
  body.set(data, 12);
  return rdpsndPdu(SNDC_WAVE2, body);
}
