// A stand-in for the gateway's data socket that plays a misbehaving RDP
// server from a script: it answers the client's X.224 Connection Request as
// told (success with TLS, or a negotiation failure), reports `secured`, then
// answers the next PDU (MCS Connect-Initial) with whatever bytes the script
// gives, and optionally drops the socket. Real servers never send garbage or
// cut PDUs in half; this is how the client's handling of both gets tested.
import { WebSocketServer } from 'ws';

const TPKT_VERSION = 0x03;
const X224_CONNECTION_REQUEST = 0xe0;

/** X.224 Connection Confirm carrying an RDP_NEG_RSP (type 2) or RDP_NEG_FAILURE (type 3). */
export function connectionConfirm(negType, value) {
  const pdu = Buffer.from([0x03, 0x00, 0x00, 0x13, 0x0e, 0xd0, 0x00, 0x00, 0x12, 0x34, 0x00, negType, 0x00, 0x08, 0x00, 0, 0, 0, 0]);
  pdu.writeUInt32LE(value, 15);
  return pdu;
}
export const PROTOCOL_SSL = 1;
export const SSL_NOT_ALLOWED_BY_SERVER = 2;

/** True for a TPKT-framed X.224 Connection Request. */
export function isConnectionRequest(bytes) {
  return bytes.length >= 6 && bytes[0] === TPKT_VERSION && (bytes[5] & 0xf0) === X224_CONNECTION_REQUEST;
}

/**
 * @param {{ confirm: Buffer, reply?: Buffer[], dropAfterReply?: boolean }} script
 * @returns {Promise<{ url: string, received: Buffer[], close(): Promise<void> }>}
 */
export async function startScriptedServer(script) {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  const received = [];
  wss.on('connection', (ws) => {
    ws.on('message', (data, isBinary) => {
      if (!isBinary) {
        const message = JSON.parse(data.toString());
        if (message.type === 'close') ws.close(1000);
        return;
      }
      const bytes = Buffer.from(data);
      received.push(bytes);
      if (isConnectionRequest(bytes)) {
        if (received.length === 1) {
          // any bytes do as the key: without NLA nothing binds to it
          ws.send(JSON.stringify({ type: 'secured', protocol: 'ssl', publicKey: Buffer.alloc(270, 7).toString('base64') }));
        }
        ws.send(script.confirm);
        return;
      }
      if (received.length === 2) {
        for (const frame of script.reply ?? []) ws.send(frame);
        if (script.dropAfterReply) ws.terminate();
      }
    });
  });
  await new Promise((resolve) => { wss.once('listening', resolve); });
  return {
    url: `ws://127.0.0.1:${wss.address().port}/`,
    received,
    close: () => new Promise((resolve) => { for (const c of wss.clients) c.terminate(); wss.close(() => resolve()); }),
  };
}
