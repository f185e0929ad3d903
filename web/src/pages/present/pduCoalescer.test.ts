import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PduCoalescer } from './pduCoalescer.js';

const pdu = (length: number, fill: number): Uint8Array => new Uint8Array(length).fill(fill);

void test('small PDUs join into one message per flush, in order, none split', () => {
  const sent: Uint8Array[] = [];
  const coalescer = new PduCoalescer((message) => sent.push(message), 100);
  coalescer.push(pdu(40, 1));
  coalescer.push(pdu(40, 2));
  assert.equal(sent.length, 0);
  // 40 + 40 + 40 > 100: the first two go, the third starts the next message
  coalescer.push(pdu(40, 3));
  assert.deepEqual(sent.map((message) => [...new Set(message)]), [[1, 2]]);
  assert.equal(sent[0]?.length, 80);
  coalescer.flush();
  assert.deepEqual(sent.map((message) => message.length), [80, 40]);
  coalescer.flush();
  assert.equal(sent.length, 2, 'an empty flush sends nothing');
});

void test('a PDU exactly at the cap is one message; one past it is refused', () => {
  const sent: Uint8Array[] = [];
  const coalescer = new PduCoalescer((message) => sent.push(message), 100);
  coalescer.push(pdu(10, 1));
  coalescer.push(pdu(100, 2));
  coalescer.flush();
  assert.deepEqual(sent.map((message) => message.length), [10, 100]);
  assert.throws(() => coalescer.push(pdu(101, 3)), /larger than one message/);
});
