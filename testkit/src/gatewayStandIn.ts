// The one stand-in for the gateway's two WebSockets (docs/kiosk-protocol.md),
// for tests of what sits on the kiosk's side of them: the display page, the
// replay page, the wasm client. It attaches to an HTTP server's upgrades (the
// test's static server, so a page finds it on its own origin as it finds the
// real gateway) or listens on its own loopback port. Control sockets greet one
// display; what happens on a data socket is a script (standInScripts.ts):
// record only (the default), play a recording, misbehave on purpose. When a
// test needs the real gateway's behaviour, it starts the real gateway instead
// (startTestGateway, startProjectingGateway): this stand-in never connects to
// an RDP server.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { KIOSK_SUBPROTOCOL } from '@lanterna/protocol';

export interface StandInDisplay {
  readonly id: string;
  readonly name: string;
  readonly token: string;
  /** Sent in welcome when given. */
  readonly location?: string;
}

/** What one data socket saw, in order. */
export interface DataSocketRecord {
  readonly sessionId: string;
  readonly texts: unknown[];
  readonly binaryFrames: Buffer[];
  closed: boolean;
}

/** One data socket as a script drives it. */
export interface DataSocketPlay {
  readonly record: DataSocketRecord;
  sendText(message: Record<string, unknown>): void;
  sendBinary(bytes: Uint8Array): void;
  /** `ended` with the reason, then close 1000, as the gateway ends a session. */
  end(reason: string): void;
  /** Drops the socket without a close handshake. */
  drop(): void;
}

/** What the stand-in does on a data socket beyond recording it. */
export interface DataScript {
  /** Every binary frame the kiosk sends (already recorded). */
  onBinary?(frame: Buffer, socket: DataSocketPlay): void;
}

export interface GatewayStandInOptions {
  /** The display whose control sockets are welcomed; without one, every hello is refused. */
  display?: StandInDisplay;
  /** A fresh script per data socket; default: record only. */
  dataScript?: (sessionId: string) => DataScript;
  /** How long the stand-in waits before answering the kiosk's `close` with `ended`. */
  endDelayMs?: number;
}

const HELLO_DEADLINE_MS = 5000;

export class GatewayStandIn {
  readonly hellos: unknown[] = [];
  readonly dataSockets: DataSocketRecord[] = [];
  endDelayMs: number;
  private readonly wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, handleProtocols: (protocols) => (protocols.has(KIOSK_SUBPROTOCOL) ? KIOSK_SUBPROTOCOL : false) });
  private readonly controls = new Set<WebSocket>();
  private readonly sockets = new Set<WebSocket>();
  private readonly plays = new Set<DataSocketPlay>();
  private accepting = true;
  /** Upgrades refused since goAway(): a page's retries while the gateway is gone. */
  refusedWhileAway = 0;
  private readonly onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): void => this.upgrade(request, socket, head);

  /** Attaches to server's upgrades; close() detaches again (and stops the server only when listen() made it). */
  constructor(private readonly server: Server, private readonly options: GatewayStandInOptions = {}, private readonly ownsServer = false) {
    this.endDelayMs = options.endDelayMs ?? 0;
    server.on('upgrade', this.onUpgrade);
  }

  /** A stand-in on its own HTTP server on a free loopback port. */
  static async listen(options: GatewayStandInOptions = {}): Promise<GatewayStandIn> {
    const server = createServer((_request, response) => response.writeHead(404).end());
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    return new GatewayStandIn(server, options, true);
  }

  /** ws://127.0.0.1:PORT of the server it is attached to. */
  get url(): string {
    return `ws://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The data socket's URL for sessionId. */
  dataUrl(sessionId: string): string {
    return `${this.url}/v1/sessions/${encodeURIComponent(sessionId)}/data`;
  }

  /** Every binary frame any data socket received, in order of the sockets. */
  get binaryFramesReceived(): Buffer[] {
    return this.dataSockets.flatMap((record) => record.binaryFrames);
  }

  get onlineControls(): number {
    return this.controls.size;
  }

  /** The gateway is gone: every socket drops and new ones are refused. */
  goAway(): void {
    this.accepting = false;
    this.refusedWhileAway = 0;
    for (const socket of this.sockets) socket.terminate();
  }

  comeBack(): void {
    this.accepting = true;
  }

  /** Sends any gateway control message (e.g. `room`) on every welcomed control socket. */
  sendControl(message: Record<string, unknown>): void {
    for (const socket of this.controls) socket.send(JSON.stringify(message));
  }

  /** Sends `project` on every welcomed control socket. */
  project(message: Record<string, unknown>): void {
    for (const socket of this.controls) socket.send(JSON.stringify({ type: 'project', ...message }));
  }

  /** Ends every open data socket as the gateway ends a session (`ended`, close 1000). */
  endSessions(reason: string): void {
    for (const play of this.plays) play.end(reason);
  }

  close(): void {
    this.server.off('upgrade', this.onUpgrade);
    for (const socket of this.sockets) socket.terminate();
    this.wss.close();
    if (this.ownsServer) {
      this.server.closeAllConnections();
      this.server.close();
    }
  }

  private upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const control = /^\/v1\/displays\/([^/]+)\/control$/.exec(path);
    const data = /^\/v1\/sessions\/([^/]+)\/data$/.exec(path);
    if (!this.accepting || (!control && !data)) {
      if (!this.accepting) this.refusedWhileAway += 1;
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
    const deadline = setTimeout(() => ws.close(4408), HELLO_DEADLINE_MS);
    ws.once('message', (raw: Buffer) => {
      clearTimeout(deadline);
      const hello = JSON.parse(raw.toString('utf8')) as { type?: unknown; token?: unknown };
      this.hellos.push(hello);
      const display = this.options.display;
      if (!display || hello.type !== 'hello' || displayId !== display.id || hello.token !== display.token) {
        ws.send(JSON.stringify({ type: 'error', phase: 'hello', code: 'unauthorized', message: 'this display’s token is not valid' }));
        ws.close(4401);
        return;
      }
      this.controls.add(ws);
      const shown = { id: display.id, name: display.name, ...(display.location === undefined ? {} : { location: display.location }) };
      ws.send(JSON.stringify({ type: 'welcome', protocol: 1, display: shown, heartbeatMs: 15000 }));
    });
  }

  private serveData(ws: WebSocket, sessionId: string): void {
    const record: DataSocketRecord = { sessionId, texts: [], binaryFrames: [], closed: false };
    this.dataSockets.push(record);
    const open = (): boolean => ws.readyState === ws.OPEN;
    const play: DataSocketPlay = {
      record,
      sendText: (message) => { if (open()) ws.send(JSON.stringify(message)); },
      sendBinary: (bytes) => { if (open()) ws.send(bytes); },
      end: (reason) => {
        if (!open()) return;
        ws.send(JSON.stringify({ type: 'ended', reason }));
        ws.close(1000);
      },
      drop: () => ws.terminate(),
    };
    this.plays.add(play);
    const script = this.options.dataScript?.(sessionId) ?? {};
    ws.on('close', () => {
      record.closed = true;
      this.plays.delete(play);
    });
    ws.on('message', (raw: Buffer, isBinary: boolean) => {
      if (isBinary) {
        record.binaryFrames.push(raw);
        script.onBinary?.(raw, play);
        return;
      }
      const message = JSON.parse(raw.toString('utf8')) as { type?: unknown };
      record.texts.push(message);
      if (message.type === 'close') setTimeout(() => play.end('client-closed'), this.endDelayMs);
    });
  }
}
