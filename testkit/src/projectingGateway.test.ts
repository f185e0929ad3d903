// The projecting gateway's helper waits out a booking that is about to end
// (the gateway hears of a client's close after the client does), but a
// display that stays booked is still reported, with the gateway's own answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startProjectingGateway } from './projectingGateway.js';

// inside the test gateway's allowed ports; never dialled, since the sessions are booked and never opened
const target = { host: '127.0.0.1', port: 1033 };

void test('a display that stays booked: the second projection fails display-busy once the wait is over', { timeout: 30_000 }, async (t) => {
  const projecting = await startProjectingGateway({ displayId: 'booked' });
  t.after(() => projecting.close());
  const first = await projecting.project(target);
  assert.match(first.dataUrl, /\/v1\/sessions\/.+\/data$/);
  const asked = Date.now();
  await assert.rejects(projecting.project(target), /admin projection answered 409: .*"display-busy"/);
  const waited = Date.now() - asked;
  assert.ok(waited >= 4000, `gave up after ${waited} ms: a booking about to end would not have been waited out`);
});
