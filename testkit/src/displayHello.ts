// A display's hello on a control socket, for tests of the token check: sends
// the hello with `token` and reports how the gateway closed the socket and
// the error it named (a welcome is answered by closing from our side).
import { WebSocket, type ClientOptions } from 'ws';

export interface HelloOutcome {
  readonly code: number;
  readonly error?: string;
}

/** `controlUrl`: the display's control socket (`…/v1/displays/<id>/control`); `client`: the hello's client name. */
export function helloOutcome(controlUrl: string, token: string, client: string, socketOptions: ClientOptions = {}): Promise<HelloOutcome> {
  return new Promise((resolve) => {
    const socket = new WebSocket(controlUrl, 'lanterna.v1', socketOptions);
    let error: string | undefined;
    socket.once('open', () => socket.send(JSON.stringify({ type: 'hello', protocol: 1, token, client })));
    socket.on('message', (data) => {
      const message = JSON.parse((data as Buffer).toString('utf8')) as { type: string; code?: string };
      if (message.type === 'error') error = message.code;
      if (message.type === 'welcome') socket.close();
    });
    socket.once('error', () => undefined);
    socket.once('close', (code) => resolve({ code, ...(error === undefined ? {} : { error }) }));
  });
}
