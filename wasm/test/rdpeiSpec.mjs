// An independent reading of RDPEI bytes, written from the specification
// ([MS-RDPEI] 2.2, Remote Desktop Protocol: Input Virtual Channel Extension)
// and not from FreeRDP's code, so that what FreeRDP's client writes can be
// checked field by field. Also what carries it on the wire: a dynamic channel
// ([MS-RDPEDYC] 2.2) inside the `drdynvc` static channel's Virtual Channel
// PDUs ([MS-RDPBCGR] 2.2.6.1) inside MCS Send Data Request/Indication PDUs
// (T.125, PER) inside X.224 Data TPDUs inside TPKT. Test code only.

/** [MS-RDPEI] 2.2.2.6 / 2.2.3: RDPINPUT_HEADER eventId values. */
export const EVENT_ID = Object.freeze({ SC_READY: 0x0001, CS_READY: 0x0002, TOUCH: 0x0003, SUSPEND_TOUCH: 0x0004, RESUME_TOUCH: 0x0005, DISMISS_HOVERING_CONTACT: 0x0006, PEN: 0x0008 });
/** [MS-RDPEI] 2.2.3.3.1.1 contactFlags. */
export const CONTACT = Object.freeze({ DOWN: 0x01, UPDATE: 0x02, UP: 0x04, INRANGE: 0x08, INCONTACT: 0x10, CANCELED: 0x20 });
/** [MS-RDPEI] 2.2.3.3.1.1 fieldsPresent. */
export const FIELDS = Object.freeze({ CONTACTRECT: 0x0001, ORIENTATION: 0x0002, PRESSURE: 0x0004 });
/** [MS-RDPEI] 2.2.3.1: RDPINPUT_PROTOCOL_V300. */
export const PROTOCOL_V300 = 0x00030000;
export const RDPEI_CHANNEL = 'Microsoft::Windows::RDS::Input';

/** A reader over bytes that fails loudly when a field runs past the end. */
export class SpecReader {
  constructor(bytes, what) {
    this.bytes = bytes;
    this.at = 0;
    this.what = what;
  }

  byte() {
    if (this.at >= this.bytes.length) throw new Error(`${this.what}: cut at byte ${this.at}`);
    return this.bytes[this.at++];
  }

  u16le() { return this.byte() | (this.byte() << 8); }
  u32le() { return (this.byte() | (this.byte() << 8) | (this.byte() << 16) | (this.byte() << 24)) >>> 0; }

  /** Big-endian continuation bytes after the first (the val2… fields). */
  #rest(value, count) {
    let v = BigInt(value);
    for (let i = 0; i < count; i++) v = (v << 8n) | BigInt(this.byte());
    return v;
  }

  /**
   * 2.2.2.1–2.2.2.5 share one layout: the first byte's top `countBits` bits
   * say how many bytes follow; a signed one's next bit is the sign; val1 is
   * the rest of that byte, the most significant part of the value.
   */
  #variable(countBits, signed) {
    const first = this.byte();
    const valueBits = 8 - countBits - (signed ? 1 : 0);
    const magnitude = this.#rest(first & ((1 << valueBits) - 1), first >> (8 - countBits));
    if (!signed) return magnitude;
    return (first & (1 << valueBits)) !== 0 ? -Number(magnitude) : Number(magnitude);
  }

  /** 2.2.2.1 TWO_BYTE_UNSIGNED_INTEGER: c (1 bit) extra bytes, val1 (7 bits). */
  twoByteUnsigned() { return Number(this.#variable(1, false)); }
  /** 2.2.2.2 TWO_BYTE_SIGNED_INTEGER: c (1 bit), s (1 bit) negative, val1 (6 bits). */
  twoByteSigned() { return this.#variable(1, true); }
  /** 2.2.2.3 FOUR_BYTE_UNSIGNED_INTEGER: c (2 bits) extra bytes, val1 (6 bits). */
  fourByteUnsigned() { return Number(this.#variable(2, false)); }
  /** 2.2.2.4 FOUR_BYTE_SIGNED_INTEGER: c (2 bits), s (1 bit) negative, val1 (5 bits). */
  fourByteSigned() { return this.#variable(2, true); }
  /** 2.2.2.5 EIGHT_BYTE_UNSIGNED_INTEGER: c (3 bits) extra bytes, val1 (5 bits). */
  eightByteUnsigned() { return this.#variable(3, false); }

  get left() { return this.bytes.length - this.at; }
}

/**
 * One RDPEI PDU, whole: 2.2.2.6 header (eventId, pduLength covering the
 * header), then SC_READY (2.2.3.1), CS_READY (2.2.3.2) or TOUCH_EVENT
 * (2.2.3.3 with its frames 2.2.3.3.1 and contacts 2.2.3.3.1.1). Throws when a
 * field is cut, pduLength is not the PDU's length, or bytes are left over.
 */
export function decodeRdpeiPdu(bytes) {
  const r = new SpecReader(bytes, 'rdpei pdu');
  const eventId = r.u16le();
  const pduLength = r.u32le();
  if (pduLength !== bytes.length) throw new Error(`rdpei pdu: pduLength ${pduLength}, the pdu is ${bytes.length} bytes`);
  let body;
  switch (eventId) {
    case EVENT_ID.SC_READY: {
      const protocolVersion = r.u32le();
      // supportedFeatures: present from version 3.0.0 on
      body = { protocolVersion, ...(protocolVersion >= PROTOCOL_V300 ? { supportedFeatures: r.u32le() } : {}) };
      break;
    }
    case EVENT_ID.CS_READY:
      body = { flags: r.u32le(), protocolVersion: r.u32le(), maxTouchContacts: r.u16le() };
      break;
    case EVENT_ID.TOUCH: {
      const encodeTime = r.fourByteUnsigned();
      const frameCount = r.twoByteUnsigned();
      const frames = [];
      for (let f = 0; f < frameCount; f++) {
        const contactCount = r.twoByteUnsigned();
        const frameOffset = r.eightByteUnsigned();
        const contacts = [];
        for (let c = 0; c < contactCount; c++) {
          const contact = { contactId: r.byte(), fieldsPresent: r.twoByteUnsigned(), x: r.fourByteSigned(), y: r.fourByteSigned(), contactFlags: r.fourByteUnsigned() };
          if (contact.fieldsPresent & FIELDS.CONTACTRECT) {
            contact.contactRect = { left: r.twoByteSigned(), top: r.twoByteSigned(), right: r.twoByteSigned(), bottom: r.twoByteSigned() };
          }
          if (contact.fieldsPresent & FIELDS.ORIENTATION) contact.orientation = r.fourByteUnsigned();
          if (contact.fieldsPresent & FIELDS.PRESSURE) contact.pressure = r.fourByteUnsigned();
          contacts.push(contact);
        }
        frames.push({ frameOffset, contacts });
      }
      body = { encodeTime, frames };
      break;
    }
    default:
      body = { raw: bytes.subarray(6) };
      r.at = bytes.length;
  }
  if (r.left !== 0) throw new Error(`rdpei pdu ${eventId}: ${r.left} bytes past its fields`);
  return { eventId, pduLength, ...body };
}

/** [MS-RDPEDYC] 2.2: a DVC PDU's Cmd, Sp and cbId, then its channel id and what follows. */
function decodeDvcPdu(bytes) {
  const r = new SpecReader(bytes, 'dvc pdu');
  const header = r.byte();
  const cmd = header >> 4;
  const sp = (header >> 2) & 3;
  const cbId = header & 3;
  const sized = (size) => (size === 0 ? r.byte() : size === 1 ? r.u16le() : r.u32le());
  if (cmd === 0x05) return { cmd }; // capabilities: no channel id
  const channelId = sized(cbId);
  if (cmd === 0x01) {
    // Create Request (server) carries a name; a Create Response (client) a status
    const rest = bytes.subarray(r.at);
    const nul = rest.indexOf(0);
    return { cmd, channelId, name: nul >= 0 ? Buffer.from(rest.subarray(0, nul)).toString('latin1') : null, rest };
  }
  if (cmd === 0x02) return { cmd, channelId, length: sized(sp), data: bytes.subarray(r.at) };
  return { cmd, channelId, data: bytes.subarray(r.at) };
}

/**
 * Every TPKT slow-path PDU in `message` (a gateway message: whole PDUs, maybe
 * several, maybe fast-path ones, which are skipped): its MCS channel and the
 * Virtual Channel PDU's header and data. MCS Send Data Request (25) or
 * Indication (26), PER: initiator, channelId, priority/segmentation, length.
 */
export function* channelPdus(message) {
  const bytes = message instanceof Uint8Array ? message : new Uint8Array(message);
  let at = 0;
  while (at < bytes.length) {
    let length;
    if (bytes[at] === 3) length = (bytes[at + 2] << 8) | bytes[at + 3];
    else length = (bytes[at + 1] & 0x80) ? (((bytes[at + 1] & 0x7f) << 8) | bytes[at + 2]) : bytes[at + 1];
    if (!(length > 0) || at + length > bytes.length) throw new Error(`a message with a cut pdu at ${at}`);
    const pdu = bytes.subarray(at, at + length);
    at += length;
    if (pdu[0] !== 3 || pdu[4] !== 2 || pdu[5] !== 0xf0) continue;
    const choice = pdu[7] >> 2;
    if (choice !== 25 && choice !== 26) continue;
    const mcsChannel = (pdu[10] << 8) | pdu[11];
    let p = 13;
    let userLength = pdu[p];
    if (userLength & 0x80) { userLength = ((userLength & 0x3f) << 8) | pdu[p + 1]; p += 2; } else p += 1;
    const user = pdu.subarray(p, p + userLength);
    if (user.length !== userLength) throw new Error('an mcs pdu shorter than its length');
    yield { mcsChannel, initiator: (pdu[8] << 8) | pdu[9], user };
  }
}

/**
 * Follows one direction of a session's dynamic channels: Virtual Channel PDUs
 * (length, flags FIRST 0x1 / LAST 0x2, chunks reassembled) on any MCS channel
 * whose payload parses as DVC PDUs; returns the RDPEI PDUs, whole (DATA_FIRST
 * and DATA reassembled), for the channel ids `rdpeiIds` names.
 */
export class DvcFollower {
  constructor() {
    this.partial = new Map(); // direction + mcs channel → chunks of a virtual channel pdu
    this.dvcPartial = new Map(); // direction + dvc channel id → { length, chunks }
    /** Channel ids the server created for RDPEI, by MCS channel. */
    this.rdpeiIds = new Set();
    this.rdpeiMcs = null;
    this.pdus = [];
  }

  /** Feeds one gateway message; `isServer`: it is the server's (Create Requests come from there). */
  feed(message, isServer) {
    for (const { mcsChannel, user } of channelPdus(message)) {
      if (mcsChannel === 1003 || user.length < 8) continue; // the I/O channel: share control pdus
      const length = user[0] | (user[1] << 8) | (user[2] << 16) | (user[3] << 24);
      const flags = (user[4] | (user[5] << 8) | (user[6] << 16) | (user[7] << 24)) >>> 0;
      if (flags & 0x00200000) continue; // compressed: not what these sessions send
      const chunk = user.subarray(8);
      const key = `${isServer ? 's' : 'c'}${mcsChannel}`;
      const chunks = (flags & 1) ? [] : (this.partial.get(key) ?? []);
      chunks.push(chunk);
      if (!(flags & 2)) { this.partial.set(key, chunks); continue; }
      this.partial.delete(key);
      const whole = Buffer.concat(chunks);
      if (whole.length !== length) continue; // not a virtual channel pdu we follow
      if (this.rdpeiMcs !== null && mcsChannel !== this.rdpeiMcs) continue;
      this.#dvc(mcsChannel, whole, isServer);
    }
  }

  #dvc(mcsChannel, bytes, isServer) {
    let pdu;
    try { pdu = decodeDvcPdu(bytes); } catch { return; }
    if (pdu.cmd === 0x01 && isServer && pdu.name === RDPEI_CHANNEL) {
      this.rdpeiIds.add(pdu.channelId);
      this.rdpeiMcs = mcsChannel;
      return;
    }
    if (!this.rdpeiIds.has(pdu.channelId) || mcsChannel !== this.rdpeiMcs) return;
    const key = `${isServer ? 's' : 'c'}${pdu.channelId}`;
    if (pdu.cmd === 0x02) {
      this.dvcPartial.set(key, { length: pdu.length, chunks: [pdu.data] });
    } else if (pdu.cmd === 0x03) {
      const open = this.dvcPartial.get(key);
      if (!open) { this.pdus.push({ fromServer: isServer, bytes: new Uint8Array(pdu.data) }); return; }
      open.chunks.push(pdu.data);
      const whole = Buffer.concat(open.chunks);
      if (whole.length < open.length) return;
      this.dvcPartial.delete(key);
      this.pdus.push({ fromServer: isServer, bytes: new Uint8Array(whole) });
    }
  }
}

/**
 * A client's Send Data Request carrying one DVC DATA PDU ([MS-RDPEDYC]
 * 2.2.3.2) of `payload` for dynamic channel `channelId` on MCS channel
 * `mcsChannel`, in one Virtual Channel chunk (FIRST | LAST): what a display
 * page could write itself.
 */
export function clientDvcData({ initiator, mcsChannel, channelId }, payload) {
  if (channelId > 0xff) throw new Error('a one-byte channel id only');
  const dvc = Uint8Array.of(0x30, channelId, ...payload); // Cmd 3 (DATA), cbId 0
  const user = new Uint8Array(8 + dvc.length);
  const view = new DataView(user.buffer);
  view.setUint32(0, dvc.length, true);
  view.setUint32(4, 0x03, true); // CHANNEL_FLAG_FIRST | CHANNEL_FLAG_LAST
  user.set(dvc, 8);
  const per = user.length < 0x80 ? [user.length] : [0x80 | (user.length >> 8), user.length & 0xff];
  const mcs = [0x64, initiator >> 8, initiator & 0xff, mcsChannel >> 8, mcsChannel & 0xff, 0x70, ...per];
  const length = 4 + 3 + mcs.length + user.length;
  return Uint8Array.of(3, 0, length >> 8, length & 0xff, 2, 0xf0, 0x80, ...mcs, ...user);
}
