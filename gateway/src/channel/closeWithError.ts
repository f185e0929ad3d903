import type { WebSocket } from 'ws';
import type { GatewayToKioskMessage } from '@lanterna/protocol';
import type { SessionError } from '../session/sessionError.js';

/** Sends the typed error, then closes with its code; the reason is truncated to fit a close frame (123 bytes). */
export function closeWithError(socket: WebSocket, error: SessionError): void {
  if (socket.readyState !== socket.OPEN) return;
  socket.send(JSON.stringify(error.toMessage()));
  socket.close(error.closeCode, Buffer.from(error.code).subarray(0, 123).toString());
}

export function sendJson(socket: WebSocket, message: GatewayToKioskMessage): void {
  if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
}
