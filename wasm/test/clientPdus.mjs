// Reads what the client put on the wire, field by field ([MS-RDPBCGR],
// [MS-RDPEGFX]), so tests can check settings where a server sees them: the
// X.224 Connection Request, the GCC blocks of MCS Connect-Initial, the Client
// Info PDU and channel data (the GFX CapsAdvertise). Pure: bytes in, objects
// out; a field that is not where the spec puts it throws.

import { parseConnectionRequest, splitWholePdus } from '@lanterna/protocol';

const SEC_INFO_PKT = 0x0040;
const INFO_UNICODE = 0x0010;
const MCS_SEND_DATA_REQUEST = 25;
const CHANNEL_FLAG_FIRST = 0x01;
const CHANNEL_FLAG_LAST = 0x02;

/** Splits a buffer of whole client PDUs (TPKT or fast-path, after the TLS/NLA handshake) into single PDUs. */
export function splitPdus(buffer) {
  return splitWholePdus(buffer, 'rdp');
}

/** X.224 Connection Request: the cookie's identifier, if any, and RDP_NEG_REQ's requestedProtocols. */
export function readConnectionRequest(pdu) {
  const request = parseConnectionRequest(pdu);
  if (!request.negotiation) throw new Error('no RDP_NEG_REQ in the connection request');
  return { cookie: request.cookie ?? null, requestedProtocols: request.requestedProtocols };
}

function perLength(bytes, at) {
  const b = bytes[at];
  if (b & 0x80) return { length: ((b & 0x3f) << 8) | bytes[at + 1], next: at + 2 };
  return { length: b, next: at + 1 };
}

/** MCS Connect-Initial: the GCC client data blocks by type (0xC001 core, 0xC003 network, …). */
export function readConnectInitial(pdu) {
  const key = pdu.indexOf('Duca'); // the H.221 key that opens the client data in the GCC request
  if (key < 0 || pdu[7] !== 0x7f || pdu[8] !== 0x65) throw new Error('not an MCS Connect-Initial');
  const { length, next } = perLength(pdu, key + 4);
  const data = pdu.subarray(next, next + length);
  const blocks = new Map();
  for (let at = 0; at + 4 <= data.length;) {
    const type = data.readUInt16LE(at);
    const size = data.readUInt16LE(at + 2);
    if (size < 4 || at + size > data.length) throw new Error(`gcc block 0x${type.toString(16)} claims ${size} bytes`);
    blocks.set(type, data.subarray(at, at + size));
    at += size;
  }
  const core = blocks.get(0xc001);
  const net = blocks.get(0xc003);
  if (!core) throw new Error('no client core data');
  return {
    core: {
      width: core.readUInt16LE(8),
      height: core.readUInt16LE(10),
      postBeta2ColorDepth: core.readUInt16LE(132),
      highColorDepth: core.readUInt16LE(140),
      supportedColorDepths: core.readUInt16LE(142),
      earlyCapabilityFlags: core.readUInt16LE(144),
    },
    channels: net ? readChannelNames(net) : [],
  };
}

function readChannelNames(block) {
  const count = block.readUInt32LE(4);
  return Array.from({ length: count }, (_v, i) => {
    const name = block.subarray(8 + i * 12, 16 + i * 12);
    const end = name.indexOf(0);
    return name.subarray(0, end < 0 ? 8 : end).toString('latin1');
  });
}

/** An MCS PDU inside TPKT + X.224 Data: its type and, for Send Data Request, channel and user data. */
export function readMcs(pdu) {
  if (pdu[0] !== 0x03 || pdu[5] !== 0xf0) return null;
  const type = pdu[7] >> 2;
  if (type !== MCS_SEND_DATA_REQUEST) return { type, channelId: type === 14 ? pdu.readUInt16BE(10) : null };
  const { length, next } = perLength(pdu, 13);
  return { type, initiator: pdu.readUInt16BE(8) + 1001, channelId: pdu.readUInt16BE(10), data: pdu.subarray(next, next + length) };
}

function utf16(bytes) {
  return bytes.toString('utf16le');
}

/** TS_INFO_PACKET and its extended part, from the user data of the Client Info PDU. */
export function readClientInfo(data) {
  const securityFlags = data.readUInt16LE(0);
  if (!(securityFlags & SEC_INFO_PKT)) throw new Error('not a Client Info PDU');
  const flags = data.readUInt32LE(8);
  if (!(flags & INFO_UNICODE)) throw new Error('Client Info is not unicode');
  const sizes = [12, 14, 16, 18, 20].map((at) => data.readUInt16LE(at));
  let at = 22;
  const [domain, username, password, alternateShell, workingDir] = sizes.map((size) => {
    const text = utf16(data.subarray(at, at + size));
    if (data.readUInt16LE(at + size) !== 0) throw new Error('missing null terminator in Client Info');
    at += size + 2;
    return text;
  });
  const cbClientAddress = data.readUInt16LE(at + 2);
  at += 4 + cbClientAddress;
  const cbClientDir = data.readUInt16LE(at);
  at += 2 + cbClientDir + 172; // clientDir, then clientTimeZone
  return {
    flags, domain, username, password, alternateShell, workingDir,
    clientSessionId: data.readUInt32LE(at),
    performanceFlags: data.readUInt32LE(at + 4),
  };
}

/** True for the MCS user data of a Client Info PDU. */
export function isClientInfo(data) {
  return data.length >= 22 && (data.readUInt16LE(0) & SEC_INFO_PKT) !== 0;
}

/**
 * Reassembles static virtual channel data (CHANNEL_PDU_HEADER chunks) per
 * channel id; returns whole channel messages in order, each { channelId, data }.
 */
export function channelMessages(mcsPdus) {
  const partial = new Map();
  const messages = [];
  for (const mcs of mcsPdus) {
    const { channelId, data } = mcs;
    const total = data.readUInt32LE(0);
    const flags = data.readUInt32LE(4);
    const chunk = data.subarray(8);
    const parts = flags & CHANNEL_FLAG_FIRST ? [] : partial.get(channelId) ?? [];
    parts.push(chunk);
    if (flags & CHANNEL_FLAG_LAST) {
      partial.delete(channelId);
      const whole = Buffer.concat(parts);
      if (whole.length !== total) throw new Error(`channel ${channelId}: ${whole.length} of ${total} bytes`);
      messages.push({ channelId, data: whole });
    } else {
      partial.set(channelId, parts);
    }
  }
  return messages;
}

function readVarUint(data, at, size) {
  if (size === 0) return data[at];
  if (size === 1) return data.readUInt16LE(at);
  return data.readUInt32LE(at);
}

/**
 * Client → server drdynvc messages ([MS-RDPEDYC]): { cmd, channelId, payload }.
 * DATA_FIRST and DATA are joined per dynamic channel.
 */
export function dynamicChannelMessages(drdynvcMessages) {
  const partial = new Map();
  const out = [];
  for (const message of drdynvcMessages) {
    const header = message[0];
    const cmd = header >> 4;
    const cbChId = header & 0x03;
    const sp = (header >> 2) & 0x03;
    const idSize = [1, 2, 4][cbChId];
    const channelId = readVarUint(message, 1, cbChId);
    let at = 1 + idSize;
    if (cmd === 0x02) { // DATA_FIRST: total length first
      const total = readVarUint(message, at, sp);
      at += [1, 2, 4][sp];
      partial.set(channelId, { total, parts: [message.subarray(at)] });
    } else if (cmd === 0x03) {
      const open = partial.get(channelId);
      if (open) open.parts.push(message.subarray(at));
      else out.push({ cmd, channelId, payload: message.subarray(at) });
    } else {
      out.push({ cmd, channelId, payload: message.subarray(at) });
      continue;
    }
    const open = partial.get(channelId);
    if (open && Buffer.concat(open.parts).length >= open.total) {
      partial.delete(channelId);
      out.push({ cmd: 0x03, channelId, payload: Buffer.concat(open.parts) });
    }
  }
  return out;
}

const RDPGFX_CMDID_CAPSADVERTISE = 0x0012;

/** RDPGFX_CAPS_ADVERTISE_PDU: the capability sets { version, flags }, or null for another GFX PDU. */
export function readGfxCapsAdvertise(payload) {
  if (payload.length < 10 || payload.readUInt16LE(0) !== RDPGFX_CMDID_CAPSADVERTISE) return null;
  if (payload.readUInt32LE(4) !== payload.length) throw new Error('CapsAdvertise pduLength does not match');
  const count = payload.readUInt16LE(8);
  const sets = [];
  let at = 10;
  for (let i = 0; i < count; i++) {
    const version = payload.readUInt32LE(at);
    const length = payload.readUInt32LE(at + 4);
    sets.push({ version, flags: length >= 4 ? payload.readUInt32LE(at + 8) : 0 });
    at += 8 + length;
  }
  if (at !== payload.length) throw new Error('CapsAdvertise sets do not fill the pdu');
  return sets;
}

export const GFX = Object.freeze({
  CAPVERSION_8: 0x00080004,
  CAPVERSION_81: 0x00080105,
  CAPS_FLAG_AVC420_ENABLED: 0x10,
  CAPS_FLAG_AVC_DISABLED: 0x20,
});

/** Every client PDU of a session, decoded as far as these tests need. */
export function decodeClientSession(pdus) {
  const out = { connectionRequest: null, connectInitial: null, clientInfo: null, channelJoins: [], sendData: [] };
  for (const pdu of pdus) {
    if (!out.connectionRequest && pdu[0] === 0x03 && (pdu[5] & 0xf0) === 0xe0) {
      out.connectionRequest = readConnectionRequest(pdu);
      continue;
    }
    if (!out.connectInitial && pdu[0] === 0x03 && pdu[7] === 0x7f && pdu[8] === 0x65) {
      out.connectInitial = readConnectInitial(pdu);
      continue;
    }
    const mcs = pdu[0] === 0x03 ? readMcs(pdu) : null;
    if (!mcs) continue;
    if (mcs.type === 14) out.channelJoins.push(mcs.channelId);
    if (mcs.type !== MCS_SEND_DATA_REQUEST) continue;
    if (!out.clientInfo && isClientInfo(mcs.data)) out.clientInfo = readClientInfo(mcs.data);
    else out.sendData.push(mcs);
  }
  return out;
}

/** Clipboard PDU names by msgType ([MS-RDPECLIP] 2.2.1). */
export const CLIPRDR = Object.freeze({
  MONITOR_READY: 0x0001,
  FORMAT_LIST: 0x0002,
  FORMAT_LIST_RESPONSE: 0x0003,
  FORMAT_DATA_REQUEST: 0x0004,
  FORMAT_DATA_RESPONSE: 0x0005,
  TEMP_DIRECTORY: 0x0006,
  CLIP_CAPS: 0x0007,
  FILECONTENTS_REQUEST: 0x0008,
  FILECONTENTS_RESPONSE: 0x0009,
  LOCK_CLIPDATA: 0x000a,
  UNLOCK_CLIPDATA: 0x000b,
  RESPONSE_OK: 0x0001,
  RESPONSE_FAIL: 0x0002,
  CAPSTYPE_GENERAL: 0x0001,
});

/** One clipboard channel message: CLIPRDR_HEADER { msgType, msgFlags, dataLen } and its data. */
export function readCliprdrPdu(message) {
  if (message.length < 8) throw new Error(`cliprdr message of ${message.length} bytes`);
  const dataLen = message.readUInt32LE(4);
  if (message.length < 8 + dataLen) throw new Error(`cliprdr message claims ${dataLen} bytes, has ${message.length - 8}`);
  return { msgType: message.readUInt16LE(0), msgFlags: message.readUInt16LE(2), dataLen, data: message.subarray(8, 8 + dataLen) };
}

/** CLIPRDR_CAPS: the general capability set { version, generalFlags } (the only kind there is). */
export function readCliprdrGeneralCapability(data) {
  const count = data.readUInt16LE(0);
  if (count !== 1) throw new Error(`${count} clipboard capability sets`);
  const type = data.readUInt16LE(4);
  const length = data.readUInt16LE(6);
  if (type !== CLIPRDR.CAPSTYPE_GENERAL || length !== 12) throw new Error(`capability set type ${type}, length ${length}`);
  return { version: data.readUInt32LE(8), generalFlags: data.readUInt32LE(12) };
}
