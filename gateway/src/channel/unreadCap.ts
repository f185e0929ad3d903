// A cap on what waits for a WebSocket peer that does not read (issue 31):
// ws answers every ping at once (its autoPong), so a display that sends
// pings and never reads grows the gateway's buffer toward it without end.
// Past the cap the socket is cut, alone. A relaying data socket ends its
// session first with `peer-not-reading` (relaySession.ts registers ahead
// of this guard); every other socket (control, handshakes) is cut here.
import type { WebSocket } from 'ws';

export function capUnread(ws: WebSocket, limitBytes: number, onCut: (unreadBytes: number) => void): void {
  ws.on('ping', () => {
    const unread = ws.bufferedAmount;
    if (unread <= limitBytes) return;
    onCut(unread);
    ws.terminate();
  });
}
