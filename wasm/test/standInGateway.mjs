// A tiny stand-in for the gateway's data socket (docs/kiosk-protocol.md), for
// testing the wasm client without the real gateway: {"type":"open","token"},
// the client's Connection Request, TCP to the server, the Confirm, TLS as
// client, `secured` with the SubjectPublicKey, then whole PDUs both ways.
import { createServer } from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { WebSocketServer } from 'ws';

/** Length of the whole PDU at the start of buf, or 0 when its header is not all there. */
export function pduLength(buf) {
  if (buf.length < 2) return 0;
  const b0 = buf[0];
  if (b0 === 0x03) return buf.length >= 4 ? buf.readUInt16BE(2) : 0; // TPKT
  if (b0 === 0x30) { // DER TSRequest during NLA
    const l = buf[1];
    if (l < 0x80) return 2 + l;
    const n = l & 0x7f;
    if (buf.length < 2 + n) return 0;
    let len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + buf[2 + i];
    return 2 + n + len;
  }
  if ((b0 & 0x03) === 0) { // fast-path
    const l1 = buf[1];
    if (l1 < 0x80) return l1 >= 2 ? l1 : -1;
    return buf.length >= 3 ? ((l1 & 0x7f) << 8) | buf[2] : 0;
  }
  return -1;
}

/** The BIT STRING contents inside a DER SubjectPublicKeyInfo. */
export function subjectPublicKey(spki) {
  const readLen = (at) => {
    const l = spki[at];
    if (l < 0x80) return [l, at + 1];
    const n = l & 0x7f;
    let len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + spki[at + 1 + i];
    return [len, at + 1 + n];
  };
  let [, at] = readLen(1); // into the outer SEQUENCE
  const [algLen, algAt] = readLen(at + 1); // skip AlgorithmIdentifier
  at = algAt + algLen;
  const [bitsLen, bitsAt] = readLen(at + 1); // BIT STRING
  return spki.subarray(bitsAt + 1, bitsAt + bitsLen); // minus the unused-bits byte
}

/**
 * @param {{ host: string, port: number, token: string, timeoutMs?: number, onClientBytes?: (bytes: Buffer) => void }} target
 *   onClientBytes sees every binary frame the client sends (whole PDUs), for tests that read the wire
 * @returns {Promise<{ url: string, close: () => Promise<void>, sessions: number }>}
 */
export async function startStandInGateway(target) {
  const http = createServer();
  const wss = new WebSocketServer({ server: http, perMessageDeflate: false });
  const sockets = new Set();
  const state = { sessions: 0 };
  wss.on('connection', (ws) => {
    state.sessions += 1;
    let server = null;
    let phase = 'open';
    let pending = Buffer.alloc(0);
    const fail = (code, message) => {
      if (ws.readyState === ws.OPEN) {
        ws.send(JSON.stringify({ type: 'error', phase, code, message }));
        ws.close(4502);
      }
      server?.destroy();
    };
    const deadline = setTimeout(() => fail('timeout', 'the stand-in gave up waiting'), target.timeoutMs ?? 15000);
    ws.on('close', () => { clearTimeout(deadline); server?.destroy(); });
    ws.on('message', (data, isBinary) => {
      if (!isBinary) {
        const msg = JSON.parse(data.toString());
        if (msg.type === 'open') {
          if (msg.token !== target.token) { ws.close(4401); return; }
          phase = 'request';
        } else if (msg.type === 'close') {
          ws.send(JSON.stringify({ type: 'ended', reason: 'client-closed' }));
          ws.close(1000);
        }
        return;
      }
      target.onClientBytes?.(Buffer.from(data));
      if (phase === 'request') {
        phase = 'connect';
        connectToServer(Buffer.from(data));
      } else if (phase === 'relay') {
        server.write(data);
      }
    });
    const connectToServer = (request) => {
      const tcp = net.connect(target.port, target.host);
      sockets.add(tcp);
      tcp.on('close', () => sockets.delete(tcp));
      server = tcp;
      tcp.on('error', (err) => fail('target-unreachable', err.message));
      tcp.once('connect', () => { phase = 'x224'; tcp.write(request); });
      let confirm = Buffer.alloc(0);
      const onConfirm = (chunk) => {
        confirm = Buffer.concat([confirm, chunk]);
        if (confirm.length < 4 || confirm.length < confirm.readUInt16BE(2)) return;
        tcp.off('data', onConfirm);
        tcp.pause();
        phase = 'tls';
        const secure = tls.connect({ socket: tcp, rejectUnauthorized: false });
        server = secure;
        secure.on('error', (err) => fail('tls-failed', err.message));
        secure.once('secureConnect', () => {
          const cert = new X509Certificate(secure.getPeerCertificate(true).raw);
          const spki = cert.publicKey.export({ type: 'spki', format: 'der' });
          ws.send(JSON.stringify({
            type: 'secured', protocol: 'ssl', tlsVersion: secure.getProtocol(), cipher: secure.getCipher().name,
            certificates: [cert.raw.toString('base64')], publicKey: Buffer.from(subjectPublicKey(spki)).toString('base64'),
            fingerprint: `sha256:${cert.fingerprint256}`, trust: 'insecure',
          }));
          ws.send(confirm);
          phase = 'relay';
          clearTimeout(deadline);
          secure.on('data', (plain) => {
            pending = Buffer.concat([pending, plain]);
            let end = 0;
            for (;;) {
              const len = pduLength(pending.subarray(end));
              if (len < 0) {
                // early user authorization result (hybrid-ex): 4 bytes, not a pdu header
                if (pending.length - end >= 4) { end += 4; continue; }
                break;
              }
              if (len === 0 || pending.length - end < len) break;
              end += len;
            }
            if (end > 0) {
              ws.send(pending.subarray(0, end)); // whole PDUs only
              pending = pending.subarray(end);
            }
          });
          secure.on('close', () => {
            if (ws.readyState === ws.OPEN) {
              ws.send(JSON.stringify({ type: 'ended', reason: 'server-closed' }));
              ws.close(1000);
            }
          });
        });
      };
      tcp.on('data', onConfirm);
    };
  });
  await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address();
  return {
    url: `ws://127.0.0.1:${port}/v1/sessions/test/data`,
    get sessions() { return state.sessions; },
    close: async () => {
      for (const ws of wss.clients) ws.terminate();
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => wss.close(() => http.close(() => resolve())));
    },
  };
}
