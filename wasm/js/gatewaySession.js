// Drives one RdpSession over a gateway data socket (docs/kiosk-protocol.md):
// sends {"type":"open","token"}, relays binary PDUs both ways, hands the
// `secured` report's public key to the client, and turns the gateway's
// `error`/`ended` messages into a typed end. The socket is any WebSocket with
// the browser API (the browser's own, or the `ws` package in Node). Messages
// are read and written with the protocol package's kiosk messages.
import { parseGatewayDataMessage } from '@lanterna/protocol';

/** Maps the gateway's error codes onto the session's reasons. */
const GATEWAY_REASONS = {
  timeout: 'timeout',
  'negotiation-failed': 'negotiation-failed',
  'legacy-security': 'negotiation-failed',
  'target-unreachable': 'connection-reset',
  'target-refused': 'connection-reset',
  'server-error': 'connection-reset',
  'gateway-shutdown': 'connection-reset',
};

/**
 * @param {import('./lanternaRdp.js').RdpSession} session a configured, not yet started session
 * @param {WebSocket} socket a data socket, connecting or open
 * @param {{ token: string }} options
 * @returns {Promise<import('./lanternaRdp.js').SessionEnd>} how the session ended
 */
export function runOverGateway(session, socket, { token }) {
  socket.binaryType = 'arraybuffer';
  let gatewayError = null;
  let gatewayEnded = null;
  let socketOpen = false;
  const outbox = [];

  const send = (bytes) => {
    if (socketOpen && socket.readyState === 1) socket.send(bytes);
    else if (!socketOpen) outbox.push(bytes);
  };

  session.onsend = send;
  const userDisconnected = session.ondisconnected;

  const ended = new Promise((resolve) => {
    session.ondisconnected = (end) => {
      let result = end;
      if (gatewayError && end.reason !== 'stopped') {
        result = {
          ...end,
          reason: GATEWAY_REASONS[gatewayError.code] ?? (end.reason === 'closed' ? 'connection-reset' : end.reason),
          gateway: gatewayError,
        };
      } else if (gatewayEnded && (end.reason === 'connection-reset' || end.reason === 'closed')) {
        result = { ...end, reason: gatewayEnded === 'server-closed' ? 'server-ended' : 'closed', gatewayEnded };
      }
      if (socket.readyState === 0 || socket.readyState === 1) {
        try { socket.send(JSON.stringify({ type: 'close' })); } catch { /* already closing */ }
        socket.close(1000);
      }
      userDisconnected.call(session, result);
      resolve(result);
    };
  });

  socket.onopen = () => {
    socketOpen = true;
    socket.send(JSON.stringify({ type: 'open', token }));
    for (const bytes of outbox.splice(0)) socket.send(bytes);
  };
  socket.onmessage = (event) => {
    if (typeof event.data === 'string') {
      const parsed = parseGatewayDataMessage(event.data);
      if (!parsed.ok) {
        gatewayError = { code: 'bad-message', message: `the gateway sent an unreadable message: ${parsed.failure.message}` };
        session.stop();
        return;
      }
      const message = parsed.message;
      if (message.type === 'secured') session.secured(message.publicKey);
      else if (message.type === 'error') gatewayError = message;
      else if (message.type === 'ended') gatewayEnded = message.reason;
      return;
    }
    session.receive(new Uint8Array(event.data));
  };
  socket.onclose = () => {
    socketOpen = false;
    session.endOfInput();
  };
  socket.onerror = () => { /* onclose follows and ends the input */ };

  if (socket.readyState === 1) socket.onopen();
  session.start();
  return ended;
}
