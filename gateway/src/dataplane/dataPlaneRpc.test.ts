// The RPC's line codec and bookkeeping without a process: lines split across
// and within chunks, requests answered by id, deadlines, answers to no one,
// and bad lines logged and dropped without ending anything.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { DataPlaneRpc, OVERSIZE, RpcLineSplitter, RpcRequestError, type RpcAnswer } from './dataPlaneRpc.js';

interface Logged { level: number; event?: string; msg: string }

function harness(onRequest: (op: string, message: Record<string, unknown>) => Promise<RpcAnswer> = () => Promise.resolve({ ok: {} }), maxLineBytes?: number) {
  const written: Record<string, unknown>[] = [];
  const notifications: [string, Record<string, unknown>][] = [];
  const logged: Logged[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => logged.push(JSON.parse(line) as Logged) });
  const rpc = new DataPlaneRpc({
    write: (line) => {
      assert.ok(line.endsWith('\n') && !line.slice(0, -1).includes('\n'), 'one object a line');
      written.push(JSON.parse(line) as Record<string, unknown>);
    },
    onRequest, onNotification: (op, message) => notifications.push([op, message]), logger,
  }, maxLineBytes);
  const feed = (text: string): void => rpc.receive(Buffer.from(text));
  return { rpc, written, notifications, logged, feed };
}

/** Resolves once `condition` holds, checked after each turn of the event loop (answers are async). */
async function settled(condition: () => boolean): Promise<void> {
  for (let turn = 0; turn < 100 && !condition(); turn++) await new Promise((resolve) => setImmediate(resolve));
  assert.ok(condition(), 'condition not met');
}

void test('lines split across chunks and several in one chunk come out whole; an over-long line is dropped to its newline', () => {
  const splitter = new RpcLineSplitter(16);
  assert.deepEqual(splitter.push(Buffer.from('{"a":')), []);
  assert.deepEqual(splitter.push(Buffer.from('1}\n{"b":2}\n{"c"')), ['{"a":1}', '{"b":2}']);
  assert.deepEqual(splitter.push(Buffer.from(':3}\n')), ['{"c":3}']);
  assert.deepEqual(splitter.push(Buffer.from('x'.repeat(20))), [OVERSIZE], 'refused as soon as it is too long');
  assert.deepEqual(splitter.push(Buffer.from('yyy\n{"d":4}\n')), ['{"d":4}'], 'the rest of that line is skipped');
  assert.deepEqual(splitter.push(Buffer.from(`${'z'.repeat(17)}\nok\n`)), [OVERSIZE, 'ok'], 'a too-long line inside one chunk');
  assert.deepEqual(splitter.push(Buffer.from('é'.slice(0, 1))), []);
  const euro = Buffer.from('"€"\n');
  assert.deepEqual([...splitter.push(euro.subarray(0, 2)), ...splitter.push(euro.subarray(2))], ['é"€"'], 'a character split between chunks is whole');
});

void test('requests from the data plane are answered under their id; notifications are handed on, each with its own fields (not op, not id)', async () => {
  const { written, notifications, feed } = harness((op, message) => Promise.resolve(op === 'admit' ? { ok: { status: 0, host: message.host } } : { error: { phase: 'open', code: 'unauthorized', message: 'no', detail: {} } }));
  feed('{"id":7,"op":"admit","host":"h"}\n{"id":8,"op":"open"}\n{"op":"phase","phase":"tls","ms":3}\n');
  await settled(() => written.length === 2);
  assert.deepEqual(written.find((line) => line.id === 7), { id: 7, ok: { status: 0, host: 'h' } });
  assert.deepEqual(written.find((line) => line.id === 8), { id: 8, error: { phase: 'open', code: 'unauthorized', message: 'no', detail: {} } });
  assert.deepEqual(notifications, [['phase', { phase: 'tls', ms: 3 }]]);
});

void test('a handler that throws is answered internal and logged, not a crash', async () => {
  const { written, logged, feed } = harness(() => { throw new Error('boom'); });
  feed('{"id":1,"op":"open"}\n');
  await settled(() => written.length === 1);
  assert.deepEqual(written[0], { id: 1, error: { phase: 'relay', code: 'internal', message: 'an internal error in the gateway', detail: {} } });
  assert.ok(logged.some((entry) => entry.event === 'dataplane-rpc-failed' && entry.level === 50));
});

void test('our requests resolve with their answer, reject with a refusal, and time out at their deadline', async () => {
  const { rpc, written, feed, logged } = harness();
  const drained = rpc.request('drain', { deadlineMs: 5 }, 1000);
  const refused = rpc.request('drain', {}, 1000);
  const late = rpc.request('drain', {}, 20);
  assert.deepEqual(written.map((line) => [line.id, line.op]), [[1, 'drain'], [2, 'drain'], [3, 'drain']]);
  assert.equal(written[0]?.deadlineMs, 5);
  feed('{"id":2,"error":{"phase":"relay","code":"internal","message":"busy","detail":{}}}\n{"id":1,"ok":{"left":0}}\n');
  assert.deepEqual(await drained, { left: 0 });
  await assert.rejects(refused, (error: unknown) => error instanceof RpcRequestError && error.refusal?.message === 'busy');
  await assert.rejects(late, /did not answer drain within 20 ms/);
  assert.equal(rpc.pendingCount, 0);
  // Its answer after the deadline is to no one: logged, dropped.
  feed('{"id":3,"ok":{}}\n');
  assert.ok(logged.some((entry) => entry.event === 'dataplane-rpc-unknown-id' && entry.level === 40));
});

void test('garbage, non-objects, bad ids and over-long lines are logged and dropped; the channel goes on', async () => {
  const { written, feed, logged, notifications } = harness(undefined, 64);
  feed('not json\n[1,2]\n{"id":"x","op":"open"}\n{"neither":1}\n');
  feed(`{"op":"sample","pad":"${'p'.repeat(100)}"}\n`);
  feed('\n{"id":4,"op":"admit"}\n{"op":"secured"}\n');
  await settled(() => written.length === 1);
  assert.deepEqual(written[0], { id: 4, ok: {} });
  assert.deepEqual(notifications.map(([op]) => op), ['secured']);
  assert.equal(logged.filter((entry) => entry.event === 'dataplane-rpc-garbage' && entry.level === 50).length, 4);
  assert.equal(logged.filter((entry) => entry.event === 'dataplane-rpc-oversize' && entry.level === 50).length, 1);
});

void test('closing the channel rejects what waits and sends nothing more', async () => {
  let answer: (value: RpcAnswer) => void = () => undefined;
  const handled = new Promise<RpcAnswer>((resolve) => { answer = resolve; });
  const { rpc, written, feed } = harness(() => handled);
  const waiting = rpc.request('drain', {}, 10_000);
  feed('{"id":1,"op":"open"}\n');
  rpc.close('the data plane exited');
  await assert.rejects(waiting, /closed before answering drain: the data plane exited/);
  await assert.rejects(rpc.request('drain', {}, 10), /channel is closed/);
  rpc.notify('stop', { sessionId: 's' });
  answer({ ok: {} });
  await handled;
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(written.map((line) => line.op ?? line.id), ['drain'], 'no answer, no notification after close');
});
