// The data socket of one session, opened inside the session worker: binary
// frames go straight to the engine's transport, so the page's thread never
// sees the ~1,000 messages a second a moving desktop brings (each one was a
// task on the page's thread, and on a loaded machine any of them could wait
// long enough for the scheduler to report a long task).
import { countPdus } from './pduCounter.js';
import { subprotocol } from './kioskProtocol.js';

export interface DataChannelEvents {
  onpdus(frame: ArrayBuffer): void;
  /** Each JSON message, as text. */
  ontext(text: string): void;
  onclose(code: number, reason: string): void;
}

/** What the engine may send before the socket opens: the Connection Request and little else. */
const MAX_QUEUED_BYTES = 64 * 1024;

export class DataChannel {
  /** Received from the gateway, for the HUD. */
  bytesIn = 0;
  pdusIn = 0;
  bytesOut = 0;
  private readonly socket: WebSocket;
  private queued: ArrayBuffer[] = [];
  private queuedBytes = 0;
  private closeRequested = false;

  constructor(url: string, sessionToken: string, private readonly events: DataChannelEvents) {
    const socket = new WebSocket(url, subprotocol);
    socket.binaryType = 'arraybuffer';
    this.socket = socket;
    socket.onopen = () => {
      socket.send(JSON.stringify({ type: 'open', token: sessionToken }));
      for (const frame of this.queued) socket.send(frame);
      this.queued = [];
      if (this.closeRequested) socket.send(JSON.stringify({ type: 'close' }));
    };
    socket.onmessage = (event: MessageEvent<ArrayBuffer | string>) => {
      const data = event.data;
      if (typeof data === 'string') {
        events.ontext(data);
        return;
      }
      this.bytesIn += data.byteLength;
      this.pdusIn += countPdus(new Uint8Array(data));
      events.onpdus(data);
    };
    socket.onclose = (event) => events.onclose(event.code, event.reason);
  }

  send(frame: ArrayBuffer): void {
    this.bytesOut += frame.byteLength;
    if (this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(frame);
    } else if (this.socket.readyState === WebSocket.CONNECTING) {
      this.queuedBytes += frame.byteLength;
      // An engine that talks this much before the gateway even answered is broken; end it.
      if (this.queuedBytes > MAX_QUEUED_BYTES) this.close(4400);
      else this.queued.push(frame);
    }
  }

  /** A JSON message (dropped unless the socket is open: only pings use this). */
  sendJson(message: object): void {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
  }

  /** Asks the gateway to end the session; it answers `ended` and closes. */
  requestClose(): void {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify({ type: 'close' }));
    else if (this.socket.readyState === WebSocket.CONNECTING) this.closeRequested = true;
  }

  close(code = 1000): void {
    this.socket.close(code);
  }
}
