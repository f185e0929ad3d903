import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { WebSocket } from 'ws';
import { PresenterLegs, type PresenterLeg } from './presenterLegs.js';

/** The meeting point never touches the socket: a labelled stand-in is enough. */
const leg = (label: string): PresenterLeg => ({ socket: { label } as unknown as WebSocket, publicKey: 'AAAA' });

void test('a presenter that comes first waits; the display takes it and both hear joined', async () => {
  const legs = new PresenterLegs();
  const presenter = leg('first');
  const wait = legs.offer('s1', presenter, 1000);
  assert.equal(legs.waitingCount, 1);
  const taken = await legs.take('s1', 1000, new AbortController().signal);
  assert.equal(taken, presenter);
  assert.equal(await wait, 'joined');
  assert.equal(legs.waitingCount, 0);
});

void test('a display that comes first waits; the presenter is handed over at once', async () => {
  const legs = new PresenterLegs();
  const taking = legs.take('s2', 1000, new AbortController().signal);
  const presenter = leg('second');
  assert.equal(await legs.offer('s2', presenter, 1000), 'joined');
  assert.equal(await taking, presenter);
});

void test('each side waits only until its deadline, and only for its own session', async () => {
  const legs = new PresenterLegs();
  assert.equal(await legs.offer('s3', leg('alone'), 20), 'timeout');
  assert.equal(legs.waitingCount, 0);
  const other = legs.offer('other', leg('other'), 1000);
  assert.equal(await legs.take('s3', 20, new AbortController().signal), undefined);
  legs.withdraw('other');
  assert.equal(await other, 'withdrawn');
});

void test('a display that gives up (its abort) no longer takes a presenter; a second presenter for one session does not replace the first', async () => {
  const legs = new PresenterLegs();
  const abort = new AbortController();
  const taking = legs.take('s4', 1000, abort.signal);
  abort.abort();
  assert.equal(await taking, undefined);
  const first = leg('first');
  const waiting = legs.offer('s4', first, 1000);
  assert.equal(await legs.offer('s4', leg('second'), 1000), 'withdrawn');
  assert.equal(await legs.take('s4', 1000, new AbortController().signal), first);
  assert.equal(await waiting, 'joined');
});
