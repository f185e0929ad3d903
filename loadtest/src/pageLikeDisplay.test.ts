// The page-like display's reconnect policy against a stand-in control
// endpoint: the delays the page's backoff gives, reset by a welcome, and the
// one loss after which the page stops for good (another kiosk took over).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { WebSocketServer, type WebSocket } from 'ws';
import { KIOSK_PROTOCOL_VERSION, KIOSK_SUBPROTOCOL } from '@lanterna/protocol';
import { PageLikeDisplay } from './pageLikeDisplay.js';
import { LatencyRecorder } from './latencyHistogram.js';
import { KW_V1_SHAPE, requestFor } from './trafficShapes.js';

/** Resolves with the next control socket the display opens, once its hello arrived. */
function nextHello(server: WebSocketServer): Promise<{ socket: WebSocket; at: number; hello: Record<string, unknown> }> {
  return new Promise((resolve) => {
    server.once('connection', (socket: WebSocket) => {
      const at = performance.now();
      socket.once('message', (data: Buffer) => resolve({ socket, at, hello: JSON.parse(data.toString('utf8')) as Record<string, unknown> }));
    });
  });
}

const welcome = JSON.stringify({ type: 'welcome', protocol: KIOSK_PROTOCOL_VERSION, display: { id: 'lobby', name: 'Lobby' }, heartbeatMs: 15_000 });

async function within(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

void test('the display comes back with the page\'s delays: 0.5–1 s after a welcome, 1–2 s after a failed try, and never after "replaced"', { timeout: 30_000 }, async (t) => {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0, handleProtocols: () => KIOSK_SUBPROTOCOL });
  t.after(() => server.close());
  await once(server, 'listening');
  const address = server.address();
  assert.ok(address !== null && typeof address === 'object');
  const display = new PageLikeDisplay({
    baseUrl: `ws://127.0.0.1:${address.port}`, displayId: 'lobby', displayToken: 'token-0123456789abcdef', timeoutMs: 5000,
    shape: KW_V1_SHAPE, request: requestFor(KW_V1_SHAPE), recorder: new LatencyRecorder(), counters: { sent: 0, received: 0, failures: 0, lastFailure: undefined },
  });
  t.after(() => display.close());

  let arrival = nextHello(server);
  display.start();
  let connection = await arrival;
  assert.equal(connection.hello.type, 'hello');
  assert.equal(connection.hello.token, 'token-0123456789abcdef');
  const delays: number[] = [];
  // welcomed, then lost: the first delay; lost before any welcome: the second, doubled; welcomed again: reset
  for (const welcomed of [true, false, true]) {
    if (welcomed) connection.socket.send(welcome);
    arrival = nextHello(server);
    const closedAt = performance.now();
    connection.socket.close(1011, 'server error');
    connection = await arrival;
    delays.push(connection.at - closedAt);
  }
  const [first = 0, second = 0, third = 0] = delays;
  // without the reset the third would wait 2–4 s; the upper bounds leave a loaded machine a second
  assert.ok(first >= 500 && first < 2000, `first delay ${first} ms`);
  assert.ok(second >= 1000 && second < 3500, `after a try with no welcome the delay doubles: ${second} ms`);
  assert.ok(third >= 500 && third < 2000, `a welcome resets the backoff: ${third} ms`);

  connection.socket.send(welcome);
  connection.socket.close(4409, 'replaced');
  await within(() => display.isStoppedForGood(), 5000);
  const window = display.takeWindow();
  assert.equal(window.losses, 4, 'every loss counted');
  assert.equal(window.lastLoss, 'control socket closed (replaced)');
  assert.equal(display.isRelaying(), false);
});
