// A data socket that also keeps the client's binary sends (its whole PDUs), for
// tests that read what the wasm client put on the wire (clientPdus.mjs decodes them).
import WebSocket from 'ws';

/** A data socket whose binary sends are also pushed, copied, onto sent. */
export function tappedSocket(url, sent) {
  const socket = new WebSocket(url, 'lanterna.v1');
  const send = socket.send.bind(socket);
  socket.send = (data, ...rest) => {
    if (typeof data !== 'string') sent.push(Buffer.from(data));
    return send(data, ...rest);
  };
  return socket;
}
