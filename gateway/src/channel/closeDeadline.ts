// A deadline on a WebSocket's closing handshake (issue 31). ws waits 30 s
// for the peer's close frame after it sends its own; a peer that does not
// read (its window closed) never takes ours, and meanwhile holds its
// connection and, before `open` or `hello` is accepted, a pending place.
// After `deadlineMs` the socket is cut (the 'close' event frees the places).
import type { WebSocket } from 'ws';

export function boundCloseHandshake(ws: WebSocket, deadlineMs: number): void {
  const close = ws.close.bind(ws);
  ws.close = (code?: number, data?: string | Buffer): void => {
    close(code, data);
    if (ws.readyState !== ws.CLOSING) return;
    const timer = setTimeout(() => { ws.terminate(); }, deadlineMs);
    timer.unref();
    ws.once('close', () => { clearTimeout(timer); });
  };
}
