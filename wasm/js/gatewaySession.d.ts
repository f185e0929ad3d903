import type { RdpSession, SessionEnd } from './lanternaRdp.js';

/** A WebSocket with the browser API (the browser's own, or the `ws` package's). */
export interface DataSocket {
  binaryType: string;
  readonly readyState: number;
  send(data: string | ArrayBufferView | ArrayBuffer): void;
  close(code?: number): void;
  onopen: ((event?: unknown) => void) | null;
  onmessage: ((event: { data: string | ArrayBuffer }) => void) | null;
  onclose: ((event?: unknown) => void) | null;
  onerror: ((event?: unknown) => void) | null;
}

/** Runs a configured, unstarted session over a gateway data socket; resolves with its end. */
export declare function runOverGateway(session: RdpSession, socket: DataSocket, options: { token: string }): Promise<SessionEnd>;
