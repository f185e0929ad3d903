// The presenter page's part of presenting from a browser, played by the wasm
// presenter in Node: its socket to the gateway, `present` with the session's
// token and its public key, then PDUs both ways (as presenterLeg.test.mjs
// plays it); an unreadable text message from the gateway closes it, and the
// socket's end is the presenter's end of input.
import WebSocket from 'ws';
import { parseGatewayPresenterMessage } from '@lanterna/protocol';
import assert from 'node:assert/strict';
import type { TestGateway } from '@lanterna/testkit';
import type { PresenterSession } from '../../../wasm/js/lanternaPresenter.js';

/** What the presenter API answered a browser source's projection request with. */
export interface PresenterStart {
  readonly presenter: { readonly socketUrl: string; readonly token: string };
}

/** Asks the presenter API, with the display's room PIN, to project a browser source on `displayId`; it must answer 202. */
export async function startBrowserProjection(gateway: TestGateway, displayId: string): Promise<PresenterStart> {
  const pin = await gateway.roomPin(displayId);
  assert.ok(pin);
  const asked = await fetch(`${gateway.httpUrl}/v1/displays/${displayId}/projection`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-lanterna-presenter': '1' }, body: JSON.stringify({ pin, source: 'browser' }),
  });
  const started = await asked.json() as PresenterStart;
  assert.equal(asked.status, 202, JSON.stringify(started));
  return started;
}

export function connectPresenterLeg(presenter: PresenterSession, started: PresenterStart): WebSocket {
  const socket = new WebSocket(started.presenter.socketUrl, 'lanterna.v1');
  socket.binaryType = 'nodebuffer';
  presenter.onoutput = (bytes) => { if (socket.readyState === WebSocket.OPEN) socket.send(bytes); };
  socket.on('open', () => {
    socket.send(JSON.stringify({ type: 'present', token: started.presenter.token, publicKey: Buffer.from(presenter.publicKey).toString('base64') }));
    presenter.start();
  });
  socket.on('message', (data: Buffer, isBinary: boolean) => {
    if (isBinary) presenter.feed(new Uint8Array(data));
    else if (!parseGatewayPresenterMessage(data.toString('utf8')).ok) socket.close();
  });
  socket.on('close', () => presenter.endOfInput());
  return socket;
}
