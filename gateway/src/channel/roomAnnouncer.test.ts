// The room announcer without a network: a stand-in socket records what it is
// sent. The PIN goes out after attach, again when its timer runs out (the
// announcer's own timer makes the broker rotate it), never twice the same,
// and nothing after the socket closed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { WebSocket } from 'ws';
import { pino } from 'pino';
import { MemoryBrokerStore } from '../broker/memoryBrokerStore.js';
import { RoomPins } from '../broker/roomPins.js';
import type { BrokerEvent } from '../broker/brokerEvents.js';
import { RoomAnnouncer } from './roomAnnouncer.js';

/** Waits on a condition with a deadline (the test kit imports the gateway, so the gateway's own tests cannot import it). */
async function waitFor(what: string, condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

class RecordingSocket extends EventEmitter {
  readonly OPEN = 1;
  readyState = 1;
  readonly sent: { type: string; pin: string; presenterUrl: string }[] = [];
  send(text: string): void {
    this.sent.push(JSON.parse(text) as { type: string; pin: string; presenterUrl: string });
  }
  close(): void {
    this.readyState = 3;
    this.emit('close');
  }
}

test('the PIN is sent on attach and again when its timer rotates it; a change announced elsewhere is sent once; none after close', async () => {
  const events: BrokerEvent[] = [];
  const pins = new RoomPins({
    store: new MemoryBrokerStore(),
    settings: { digits: 6, rotateMs: 300, graceMs: 0 },
    limits: { perDisplay: { max: 10, windowMs: 60_000 }, perSource: { max: 5, windowMs: 60_000 } },
    publish: (event) => events.push(event),
  });
  const announcer = new RoomAnnouncer({ pins, logger: pino({ level: 'silent' }) });
  const socket = new RecordingSocket();
  announcer.attach(socket as unknown as WebSocket, 'room', 'https://gw/present?display=room');
  await waitFor('the first room message', () => socket.sent.length === 1, 2000);
  const first = socket.sent[0];
  assert.equal(first?.type, 'room');
  assert.equal(first.presenterUrl, 'https://gw/present?display=room');

  await waitFor('the timer rotation', () => socket.sent.length === 2, 3000);
  assert.notEqual(socket.sent[1]?.pin, first.pin);
  assert.ok(events.length >= 2, 'each rotation was announced on the bus');

  // Another worker used the PIN: the bus says so, the announcer reads and sends it once.
  const record = await pins.current('room');
  assert.equal(await pins.use('room', record), true);
  await Promise.all([announcer.refresh('room'), announcer.refresh('room')]);
  const afterUse = socket.sent.length;
  assert.equal(socket.sent.at(-1)?.pin, (await pins.current('room')).pin);
  assert.equal(socket.sent.filter((message) => message.pin === socket.sent.at(-1)?.pin).length, 1, 'the same PIN is not sent twice');

  socket.close();
  await announcer.refresh('room');
  assert.equal(socket.sent.length, afterUse, 'nothing is sent to a closed display');
});
