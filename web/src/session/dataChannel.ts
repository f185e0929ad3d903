// The data socket of one session, on the page's thread: binary frames go to
// the session worker by transfer (the ArrayBuffer moves, nothing is copied),
// JSON messages go as text; whatever the worker sends goes to the socket.
import { countPdus } from './pduCounter.js';
import { subprotocol } from './kioskProtocol.js';
import type { DataPortMessage } from './sessionWorkerProtocol.js';

export interface DataChannelEvents {
  onclose?: (code: number, reason: string) => void;
  /** Each JSON message, as text, before it goes to the worker. */
  ontext?: (text: string) => void;
}

export class DataChannel {
  /** Received from the gateway, for the HUD. */
  bytesIn = 0;
  pdusIn = 0;
  bytesOut = 0;
  private readonly socket: WebSocket;

  constructor(url: string, sessionToken: string, private readonly port: MessagePort, events: DataChannelEvents = {}) {
    const socket = new WebSocket(url, subprotocol);
    socket.binaryType = 'arraybuffer';
    this.socket = socket;
    socket.onopen = () => socket.send(JSON.stringify({ type: 'open', token: sessionToken }));
    socket.onmessage = (event: MessageEvent<ArrayBuffer | string>) => {
      const data = event.data;
      if (typeof data === 'string') {
        events.ontext?.(data);
        this.forward({ type: 'message', text: data });
        return;
      }
      this.bytesIn += data.byteLength;
      this.pdusIn += countPdus(new Uint8Array(data));
      this.forward({ type: 'pdus', data }, [data]);
    };
    socket.onclose = (event) => {
      port.close();
      events.onclose?.(event.code, event.reason);
    };
    port.onmessage = (event: MessageEvent<DataPortMessage>) => {
      const message = event.data;
      if (socket.readyState !== WebSocket.OPEN) return;
      if (message.type === 'pdus') {
        this.bytesOut += message.data.byteLength;
        socket.send(message.data);
      } else if (message.type === 'close') {
        socket.send(JSON.stringify({ type: 'close' }));
      }
    };
  }

  /** Asks the gateway to end the session; it answers `ended` and closes. */
  requestClose(): void {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify({ type: 'close' }));
    else this.socket.close();
  }

  close(): void {
    this.socket.close(1000);
    this.port.close();
  }

  private forward(message: DataPortMessage, transfer: Transferable[] = []): void {
    this.port.postMessage(message, transfer);
  }
}
