// Plays the gateway's part of one session's data socket (docs/kiosk-protocol.md)
// from a recording: the page's engine sends its Connection Request, gets
// `secured` and a Connection Confirm selecting TLS (recordingReplay.js's, as
// the wasm replay answers), then all of the recorded server's PDUs at once, as
// the gateway's binary frames (so the engine never waits for input and the
// bench times decoding, not the recording's pauses). The page cannot tell it
// from a gateway; what the engine sends is counted, not answered (a recorded
// server answers what it answered).
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { tlsConnectionConfirm } from '../../../wasm/js/recordingReplay.js';
import type { ReplayBurst } from './replayBursts.js';

/** A replay needs no CredSSP (TLS only), so any key will do; 270 bytes is an RSA-2048 SubjectPublicKey's size. */
const placeholderPublicKey = Buffer.alloc(270).toString('base64');

export class RecordingDataSocket {
  /** Binary frames the engine sent (its Connection Request included). */
  clientFrames = 0;
  /** Resolves when the last recorded PDU has gone out. */
  readonly sent: Promise<void>;
  private resolveSent: () => void = () => undefined;
  private socket: WebSocket | null = null;
  private readonly wss = new WebSocketServer({ noServer: true, handleProtocols: (protocols) => (protocols.has('lanterna.v1') ? 'lanterna.v1' : false) });
  private readonly onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): void => this.upgrade(request, socket, head);

  constructor(private readonly server: Server, readonly path: string, private readonly bursts: readonly ReplayBurst[]) {
    this.sent = new Promise((resolve) => { this.resolveSent = resolve; });
    server.on('upgrade', this.onUpgrade);
  }

  /** The recorded server is done: `ended`, then close 1000, as the gateway does. */
  end(reason = 'server-closed'): void {
    const socket = this.socket;
    if (!socket || socket.readyState !== socket.OPEN) return;
    socket.send(JSON.stringify({ type: 'ended', reason }));
    socket.close(1000);
  }

  close(): void {
    this.server.off('upgrade', this.onUpgrade);
    this.socket?.terminate();
    this.wss.close();
  }

  private upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    if (new URL(request.url ?? '/', 'http://localhost').pathname !== this.path) return;
    if (this.socket) {
      socket.end('HTTP/1.1 409 Conflict\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    this.wss.handleUpgrade(request, socket, head, (ws) => {
      this.socket = ws;
      ws.on('message', (raw: Buffer, isBinary: boolean) => {
        if (!isBinary) {
          const message = JSON.parse(raw.toString('utf8')) as { type?: unknown };
          if (message.type === 'close') this.end('client-closed');
          return;
        }
        this.clientFrames += 1;
        if (this.clientFrames === 1) this.play(ws);
      });
    });
  }

  /** Answers the Connection Request, then sends the whole recording. */
  private play(ws: WebSocket): void {
    ws.send(JSON.stringify({
      type: 'secured', protocol: 'ssl', tlsVersion: 'recording', cipher: 'recording',
      certificates: [], publicKey: placeholderPublicKey, fingerprint: '', trust: 'insecure',
    }));
    ws.send(tlsConnectionConfirm());
    for (const burst of this.bursts) ws.send(burst.data);
    this.resolveSent();
  }
}
