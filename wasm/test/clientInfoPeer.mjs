// A scripted RDP server on TCP + TLS that takes a client as far as its Client
// Info PDU and keeps every PDU the client sent: X.224 Confirm choosing TLS,
// MCS Connect-Response (the channels the client asked for), Attach User
// Confirm, one Channel Join Confirm per request. Then it hangs up. It exists
// for what no server here can show: a Remote Assistance client's fields (only
// Windows runs an RA server). The real gateway sits between it and the client.
import net from 'node:net';
import tls from 'node:tls';
import { generateTestCertificate, tlsConnectionConfirm } from '@lanterna/testkit';

import { readConnectInitial, readConnectionRequest, readMcs, isClientInfo, splitPdus } from './clientPdus.mjs';
import { PduFramer } from '@lanterna/protocol';

const USER_ID = 1007;
const IO_CHANNEL = 1003;

function tpktData(body) {
  const header = Buffer.from([0x03, 0x00, 0x00, 0x00, 0x02, 0xf0, 0x80]);
  header.writeUInt16BE(header.length + body.length, 2);
  return Buffer.concat([header, body]);
}

function berLength(n) {
  if (n < 0x80) return Buffer.from([n]);
  if (n < 0x100) return Buffer.from([0x81, n]);
  return Buffer.from([0x82, n >> 8, n & 0xff]);
}

function ber(tag, content) {
  return Buffer.concat([Buffer.from(tag), berLength(content.length), content]);
}

function berInteger(value) {
  if (value < 0x80) return ber([0x02], Buffer.from([value]));
  if (value < 0x8000) return ber([0x02], Buffer.from([value >> 8, value & 0xff]));
  return ber([0x02], Buffer.from([0x00, value >> 8, value & 0xff]));
}

function perLength(n) {
  return n < 0x80 ? Buffer.from([n]) : Buffer.from([0x80 | (n >> 8), n & 0xff]);
}

function block(type, body) {
  const header = Buffer.alloc(4);
  header.writeUInt16LE(type, 0);
  header.writeUInt16LE(4 + body.length, 2);
  return Buffer.concat([header, body]);
}

/** MCS Connect-Response giving the client the channels it asked for (ids 1004…). */
function connectResponse(requestedProtocols, channelCount) {
  const core = Buffer.alloc(12);
  core.writeUInt32LE(0x00080004, 0); // RDP 5+
  core.writeUInt32LE(requestedProtocols, 4);
  const security = Buffer.alloc(8); // no RDP encryption: TLS carries it
  const net = Buffer.alloc(4 + 2 * channelCount + (channelCount % 2 ? 2 : 0));
  net.writeUInt16LE(IO_CHANNEL, 0);
  net.writeUInt16LE(channelCount, 2);
  for (let i = 0; i < channelCount; i++) net.writeUInt16LE(IO_CHANNEL + 1 + i, 4 + 2 * i);
  const serverData = Buffer.concat([block(0x0c01, core), block(0x0c02, security), block(0x0c03, net)]);
  // T.124 ConnectData + ConferenceCreateResponse ([MS-RDPBCGR] 4.1.4 shows the same bytes)
  const gcc = Buffer.concat([
    Buffer.from([0x00, 0x05, 0x00, 0x14, 0x7c, 0x00, 0x01, 0x2a, 0x14, 0x76, 0x0a, 0x01, 0x01, 0x00, 0x01, 0xc0, 0x00]),
    Buffer.from('McDn'), perLength(serverData.length), serverData,
  ]);
  const domain = ber([0x30], Buffer.concat([34, 3, 0, 1, 0, 1, 65528, 2].map(berInteger)));
  const body = Buffer.concat([ber([0x0a], Buffer.from([0])), berInteger(0), domain, ber([0x04], gcc)]);
  return tpktData(ber([0x7f, 0x66], body));
}

function attachUserConfirm() {
  return tpktData(Buffer.from([0x2e, 0x00, (USER_ID - 1001) >> 8, (USER_ID - 1001) & 0xff]));
}

function channelJoinConfirm(channelId) {
  const body = Buffer.from([0x3e, 0x00, 0, 0, 0, 0, 0, 0]);
  body.writeUInt16BE(USER_ID - 1001, 2);
  body.writeUInt16BE(channelId, 4);
  body.writeUInt16BE(channelId, 6);
  return tpktData(body);
}

/**
 * @returns {Promise<{ host: string, port: number, sessions: { pdus: Buffer[], clientInfo: Promise<void> }[], close(): Promise<void> }>}
 */
export async function startClientInfoPeer() {
  const { cert, key } = await generateTestCertificate('lanterna-client-info-peer');
  const sockets = new Set();
  const sessions = [];
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    const session = { pdus: [] };
    let reached;
    session.clientInfo = new Promise((resolve) => { reached = resolve; });
    sessions.push(session);
    socket.once('data', (first) => {
      const request = splitPdus(first)[0];
      session.pdus.push(request);
      const { requestedProtocols } = readConnectionRequest(request);
      socket.write(tlsConnectionConfirm());
      const secure = new tls.TLSSocket(socket, { isServer: true, cert, key });
      sockets.add(secure);
      secure.on('error', () => socket.destroy());
      // TLS security, no NLA: the client's PDUs are TPKT and fast-path from the start.
      const framer = new PduFramer({ mode: 'rdp' });
      secure.on('data', (chunk) => {
        for (const pdu of framer.pushPdus(chunk)) {
          session.pdus.push(Buffer.from(pdu));
          if (pdu[7] === 0x7f && pdu[8] === 0x65) {
            secure.write(connectResponse(requestedProtocols, readConnectInitial(pdu).channels.length));
            continue;
          }
          const mcs = readMcs(pdu);
          if (mcs?.type === 10) secure.write(attachUserConfirm());
          else if (mcs?.type === 14) secure.write(channelJoinConfirm(mcs.channelId));
          else if (mcs?.type === 25 && isClientInfo(mcs.data)) {
            reached();
            secure.end(); // as far as this peer goes
            return;
          }
        }
      });
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    host: '127.0.0.1',
    port: server.address().port,
    sessions,
    close: () => new Promise((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}
