import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createDecipheriv, hkdfSync } from 'node:crypto';
import { SealedBox } from './sealedBox.js';

const secret = Buffer.from('s'.repeat(32));

test('a sealed value opens with its secret and purpose only, and a changed one not at all', () => {
  const box = new SealedBox(secret, 'bus event');
  const sealed = box.seal({ password: 'hunter2' });
  assert.doesNotMatch(Buffer.from(sealed, 'base64url').toString('latin1'), /hunter2/);
  assert.deepEqual(box.open(sealed), { password: 'hunter2' });
  assert.equal(new SealedBox(Buffer.from('t'.repeat(32)), 'bus event').open(sealed), undefined, 'another secret');
  assert.equal(new SealedBox(secret, 'room pin').open(sealed), undefined, 'another purpose');
  assert.equal(new SealedBox(secret).open(sealed), undefined, 'the default purpose is another one');
  const raw = Buffer.from(sealed, 'base64url');
  raw[raw.length - 1] = (raw[raw.length - 1] ?? 0) ^ 1;
  assert.equal(box.open(raw.toString('base64url')), undefined, 'changed');
  assert.equal(box.open('short'), undefined);
});

test('the default purpose keeps the key intents were sealed with before purposes existed', () => {
  const sealed = Buffer.from(new SealedBox(secret).seal({ kept: true }), 'base64url');
  const key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'lanterna projection intent v1', 32));
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 12));
  decipher.setAuthTag(sealed.subarray(12, 28));
  assert.equal(Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]).toString('utf8'), '{"kept":true}');
});

test('digests are keyed: equal under one secret and purpose, different under others, unambiguous in their parts', () => {
  const box = new SealedBox(secret, 'room pin');
  assert.equal(box.digest('room', '123456'), new SealedBox(secret, 'room pin').digest('room', '123456'));
  assert.notEqual(box.digest('room', '123456'), box.digest('room', '123457'));
  assert.notEqual(box.digest('room', '123456'), new SealedBox(Buffer.from('t'.repeat(32)), 'room pin').digest('room', '123456'));
  assert.notEqual(box.digest('room', '123456'), new SealedBox(secret, 'bus event').digest('room', '123456'));
  assert.notEqual(box.digest('a:b', 'c'), box.digest('a', 'b:c'));
  assert.match(box.digest('room', '123456'), /^[0-9a-f]{64}$/);
});
