// A stand-in for the gateway's data socket that plays a misbehaving RDP
// server from a script: it answers the client's X.224 Connection Request as
// told (success with TLS, or a negotiation failure), reports `secured`, then
// answers the next PDU (MCS Connect-Initial) with whatever bytes the script
// gives, and optionally drops the socket. Real servers never send garbage or
// cut PDUs in half; this is how the client's handling of both gets tested.
import { WebSocketServer } from 'ws';
import { buildConnectionConfirm, parseConnectionRequest, X224Error } from '@lanterna/protocol';

/** X.224 Connection Confirm selecting `selectedProtocol`, or refusing with `failureCode`. */
export function connectionConfirm(answer) {
  return 'failureCode' in answer
    ? buildConnectionConfirm({ kind: 'failure', failureCode: answer.failureCode })
    : buildConnectionConfirm({ kind: 'response', selectedProtocol: answer.selectedProtocol, flags: 0 });
}

/** True for a well-formed X.224 Connection Request. */
export function isConnectionRequest(bytes) {
  try {
    parseConnectionRequest(bytes);
    return true;
  } catch (error) {
    if (error instanceof X224Error) return false;
    throw error;
  }
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
          ws.send(JSON.stringify({
            type: 'secured', protocol: 'ssl', certificates: [], publicKey: Buffer.alloc(270, 7).toString('base64'), trust: 'insecure',
          }));
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
