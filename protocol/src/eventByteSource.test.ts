import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { eventByteSource } from './eventByteSource.js';
import { readOnePdu } from './readOnePdu.js';
import { buildConnectionConfirm, buildConnectionRequest, PROTOCOL } from './x224.js';

void test('chunks come out in order, whether they arrived before or during a read; an end event ends it', async () => {
  const emitter = new EventEmitter();
  const source = eventByteSource(emitter);
  emitter.emit('data', Uint8Array.of(1));
  emitter.emit('data', Uint8Array.of(2));
  assert.deepEqual(await source.read(), Uint8Array.of(1));
  assert.deepEqual(await source.read(), Uint8Array.of(2));
  const waiting = source.read();
  emitter.emit('data', Uint8Array.of(3));
  assert.deepEqual(await waiting, Uint8Array.of(3));
  const ending = source.read();
  emitter.emit('close');
  assert.equal(await ending, null);
  assert.equal(await source.read(), null);
});

void test('an error event rejects the read; detach stops listening and hands back what was not read', async () => {
  const emitter = new EventEmitter();
  const failing = eventByteSource(emitter);
  const reading = failing.read();
  emitter.emit('error', new Error('read ECONNRESET'));
  await assert.rejects(reading, /ECONNRESET/);
  failing.detach();

  const source = eventByteSource(emitter, { dataEvent: 'message', endEvents: ['close'] });
  emitter.emit('message', Uint8Array.of(7));
  emitter.emit('message', Uint8Array.of(8));
  assert.deepEqual(await source.read(), Uint8Array.of(7));
  assert.deepEqual(source.detach(), [Uint8Array.of(8)]);
  assert.equal(emitter.listenerCount('message') + emitter.listenerCount('close') + emitter.listenerCount('error'), 0);
  assert.equal(await source.read(), null);
});

void test('over a Node stream: one Connection Request read whole, what follows it handed back', async () => {
  const stream = new PassThrough();
  const request = buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL, cookie: 'room' });
  const confirm = buildConnectionConfirm({ kind: 'none' });
  const source = eventByteSource<Buffer>(stream);
  stream.write(request.subarray(0, 9));
  stream.write(Buffer.concat([request.subarray(9), confirm]));
  const { pdu, rest } = await readOnePdu(source, { maxBytes: 1024, trailing: 'return' });
  stream.pause();
  assert.ok(Buffer.isBuffer(pdu));
  assert.deepEqual(new Uint8Array(pdu), request);
  assert.deepEqual(new Uint8Array(rest), confirm);
  assert.deepEqual(source.detach(), []);
});
