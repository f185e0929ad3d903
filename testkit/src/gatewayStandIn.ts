// A small stand-in for the gateway's two WebSockets, following
// docs/kiosk-protocol.md, attached to the test's static server so that the
// page finds it on its own origin as it will find the real gateway.
import type { Server, IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';

export interface StandInDisplay {
  readonly id: string;
  readonly name: string;
  readonly token: string;
}

export interface DataSocketRecord {
  readonly sessionId: string;
  readonly texts: unknown[];
  readonly binaryFrames: Buffer[];
  closed: boolean;
}

export class GatewayStandIn {
  readonly hellos: unknown[] = [];
  readonly dataSockets: DataSocketRecord[] = [];
  private readonly wss = new WebSocketServer({ noServer: true, handleProtocols: (protocols) => (protocols.has('lanterna.v1') ? 'lanterna.v1' : false) });
  private readonly controls = new Set<WebSocket>();
  private readonly sockets = new Set<WebSocket>();
  private accepting = true;
  /** How long the stand-in waits before answering the client's `close` with `ended`. */
  endDelayMs = 0;
  private readonly onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): void => this.upgrade(request, socket, head);

  constructor(private readonly server: Server, private readonly display: StandInDisplay) {
    server.on('upgrade', this.onUpgrade);
  }

  /** The gateway is gone: every socket drops and new ones are refused. */
  goAway(): void {
    this.accepting = false;
    for (const socket of this.sockets) socket.terminate();
  }

  comeBack(): void {
    this.accepting = true;
  }

  get onlineControls(): number {
    return this.controls.size;
  }

  /** Sends `project` on every authenticated control socket. */
  project(message: Record<string, unknown>): void {
    for (const socket of this.controls) socket.send(JSON.stringify({ type: 'project', ...message }));
  }

  close(): void {
    this.server.off('upgrade', this.onUpgrade);
    for (const socket of this.sockets) socket.terminate();
    this.wss.close();
  }

  private upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const control = /^\/v1\/displays\/([^/]+)\/control$/.exec(path);
    const data = /^\/v1\/sessions\/([^/]+)\/data$/.exec(path);
    if (!this.accepting || (!control && !data)) {
      socket.end('HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    this.wss.handleUpgrade(request, socket, head, (ws) => {
      this.sockets.add(ws);
      ws.on('close', () => {
        this.sockets.delete(ws);
        this.controls.delete(ws);
      });
      if (control) this.serveControl(ws, decodeURIComponent(control[1] ?? ''));
      else this.serveData(ws, decodeURIComponent(data?.[1] ?? ''));
    });
  }

  private serveControl(ws: WebSocket, displayId: string): void {
    const deadline = setTimeout(() => ws.close(4408), 5000);
    ws.once('message', (raw: Buffer) => {
      clearTimeout(deadline);
      const hello = JSON.parse(raw.toString('utf8')) as { type?: unknown; token?: unknown };
      this.hellos.push(hello);
      if (hello.type !== 'hello' || displayId !== this.display.id || hello.token !== this.display.token) {
        ws.send(JSON.stringify({ type: 'error', phase: 'hello', code: 'unauthorized', message: 'this display’s token is not valid' }));
        ws.close(4401);
        return;
      }
      this.controls.add(ws);
      ws.send(JSON.stringify({ type: 'welcome', protocol: 1, display: { id: this.display.id, name: this.display.name }, heartbeatMs: 15000 }));
    });
  }

  private serveData(ws: WebSocket, sessionId: string): void {
    const record: DataSocketRecord = { sessionId, texts: [], binaryFrames: [], closed: false };
    this.dataSockets.push(record);
    ws.on('close', () => {
      record.closed = true;
    });
    ws.on('message', (raw: Buffer, isBinary: boolean) => {
      if (isBinary) {
        record.binaryFrames.push(raw);
        return;
      }
      const message = JSON.parse(raw.toString('utf8')) as { type?: unknown };
      record.texts.push(message);
      if (message.type === 'close') {
        setTimeout(() => {
          ws.send(JSON.stringify({ type: 'ended', reason: 'client-closed' }));
          ws.close(1000);
        }, this.endDelayMs);
      }
    });
  }
}
