// The handshake reader holds a bounded number of unread messages, and none at
// all while the display must stay silent (the server leg is being set up).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { HandshakeReader, type Interruption } from './handshakeReader.js';

function socket(): EventEmitter & { text(text: string): void; binary(bytes: number): void } {
  const emitter = new EventEmitter();
  return Object.assign(emitter, {
    text: (text: string) => emitter.emit('message', Buffer.from(text), false),
    binary: (bytes: number) => emitter.emit('message', Buffer.alloc(bytes), true),
  });
}

test('messages are read in order, each wait with its deadline', async () => {
  const source = socket();
  const reader = new HandshakeReader(source);
  source.text('{"type":"open"}');
  source.binary(19);
  assert.deepEqual(await reader.next(100), { kind: 'text', text: '{"type":"open"}' });
  const second = await reader.next(100);
  assert.equal(second !== 'timeout' && second !== 'closed' && second !== 'interrupted' && second.kind, 'binary');
  assert.equal(await reader.next(20), 'timeout');
  source.emit('close');
  assert.equal(await reader.next(100), 'closed');
});

test('a flood before the handshake reads it is cut off at the limits, not queued', async () => {
  const source = socket();
  const reader = new HandshakeReader(source, { maxQueuedMessages: 4, maxQueuedBytes: 64 * 1024 });
  source.text('{"type":"open"}');
  for (let i = 0; i < 10_000; i++) {
    source.binary(1024);
    assert.ok(reader.bufferedBytes <= 64 * 1024 && reader.bufferedMessages <= 4, `bounded after ${i + 1} messages`);
  }
  assert.equal(reader.interrupted, 'overflow');
  assert.equal(reader.bufferedMessages, 0, 'what was queued is dropped: the session is over');
  assert.equal(await reader.next(100), 'interrupted');

  const bytesSource = socket();
  const reader2 = new HandshakeReader(bytesSource, { maxQueuedMessages: 100, maxQueuedBytes: 1000 });
  bytesSource.binary(600);
  assert.equal(reader2.interrupted, undefined);
  bytesSource.binary(600);
  assert.equal(reader2.interrupted, 'overflow', 'the byte limit holds with few messages');
});

test('while the display must be silent its first message interrupts at once and is not kept', async () => {
  const source = socket();
  const reader = new HandshakeReader(source);
  source.text('{"type":"open"}');
  await reader.next(100);
  const seen: Interruption[] = [];
  reader.expectSilence((why) => seen.push(why));
  const waiting = reader.next(5000);
  source.binary(256 * 1024);
  for (let i = 0; i < 100; i++) source.binary(256 * 1024);
  assert.deepEqual(seen, ['unexpected'], 'one interruption, on the first message');
  assert.equal(reader.bufferedBytes, 0);
  assert.equal(await waiting, 'interrupted', 'a pending read wakes at once');
  assert.deepEqual(reader.detach(), []);
});

test('a polite close while the display must be silent is told apart from data', () => {
  const source = socket();
  const reader = new HandshakeReader(source);
  const seen: Interruption[] = [];
  reader.expectSilence((why) => seen.push(why));
  source.text('{"type":"close"}');
  source.binary(10);
  assert.deepEqual(seen, ['close']);
});

test('a message queued before the silence began counts at once, a close as a close', () => {
  for (const [send, expected] of [[(s: ReturnType<typeof socket>) => s.binary(10), 'unexpected'], [(s: ReturnType<typeof socket>) => s.text('{"type":"close"}'), 'close']] as const) {
    const source = socket();
    const reader = new HandshakeReader(source);
    send(source);
    const seen: Interruption[] = [];
    reader.expectSilence((why) => seen.push(why));
    assert.deepEqual(seen, [expected]);
  }
});
