// The data socket of one session, opened inside the session worker: binary
// frames go straight to the engine's transport, so the page's thread never
// sees the ~1,000 messages a second a moving desktop brings (each one was a
// task on the page's thread, and on a loaded machine any of them could wait
// long enough for the scheduler to report a long task).
import {
  countWholePdus,
  framingModeFor,
  KIOSK_SUBPROTOCOL,
  type CloseMessage,
  type FramingMode,
  type KioskDataMessage,
  type OpenMessage,
  type SecurityProtocolName,
} from '@lanterna/protocol';

export interface DataChannelEvents {
  onpdus(frame: ArrayBuffer): void;
  /** Each JSON message, as text. */
  ontext(text: string): void;
  onclose(code: number, reason: string): void;
}

const closeMessage: CloseMessage = { type: 'close' };

/** What the engine may send before the socket opens: the Connection Request and little else. */
const MAX_QUEUED_BYTES = 64 * 1024;

export class DataChannel {
  /** Received from the gateway, for the HUD. */
  bytesIn = 0;
  pdusIn = 0;
  /** Binary messages received (each holds whole PDUs): what the gateway counts as sent, for the display's `figures`. */
  messagesIn = 0;
  bytesOut = 0;
  /** How the gateway's next frame is framed: the Confirm comes first, then the server's PDUs (see securedWith). */
  private inbound: FramingMode = 'rdp';
  private framesIn = 0;
  private readonly socket: WebSocket;
  private queued: ArrayBuffer[] = [];
  private queuedBytes = 0;
  private closeRequested = false;

  constructor(url: string, sessionToken: string, private readonly events: DataChannelEvents) {
    const socket = new WebSocket(url, KIOSK_SUBPROTOCOL);
    socket.binaryType = 'arraybuffer';
    this.socket = socket;
    socket.onopen = () => {
      socket.send(JSON.stringify({ type: 'open', token: sessionToken } satisfies OpenMessage));
      for (const frame of this.queued) socket.send(frame);
      this.queued = [];
      if (this.closeRequested) socket.send(JSON.stringify(closeMessage));
    };
    socket.onmessage = (event: MessageEvent<ArrayBuffer | string>) => {
      const data = event.data;
      if (typeof data === 'string') {
        events.ontext(data);
        return;
      }
      this.bytesIn += data.byteLength;
      this.messagesIn += 1;
      this.countPdus(new Uint8Array(data));
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

  /**
   * The session's security protocol, from `secured`: during NLA the server's
   * frames hold DER TSRequests (and, for HYBRID_EX, the early authorization
   * result) until its first TPKT.
   */
  securedWith(protocol: SecurityProtocolName): void {
    this.inbound = framingModeFor(protocol, 'server-to-client');
  }

  /** A JSON message (dropped unless the socket is open: only pings use this). */
  sendJson(message: KioskDataMessage): void {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
  }

  /** Asks the gateway to end the session; it answers `ended` and closes. */
  requestClose(): void {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(closeMessage));
    else if (this.socket.readyState === WebSocket.CONNECTING) this.closeRequested = true;
  }

  close(code = 1000): void {
    this.socket.close(code);
  }

  /** For the HUD: the gateway's frames hold whole PDUs, read with the protocol's framing. */
  private countPdus(frame: Uint8Array): void {
    // The first frame is the Connection Confirm (one TPKT), which does not end NLA.
    const first = this.framesIn++ === 0;
    try {
      const counted = countWholePdus(frame, first ? 'rdp' : this.inbound);
      this.pdusIn += counted.count;
      if (!first) this.inbound = counted.mode;
    } catch {
      // Only a count is lost: the engine judges the PDUs themselves.
      this.pdusIn += 1;
    }
  }
}
