import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DataSocketControl, MIN_PING_INTERVAL_MS } from './dataSocketControl.js';

test('a ping is answered with its own number only, at most once per interval', () => {
  const control = new DataSocketControl();
  assert.deepEqual(control.judge(JSON.stringify({ type: 'ping', t: 1234.5, extra: '<script>' }), 1000), { action: 'pong', reply: '{"type":"pong","t":1234.5}' });
  assert.deepEqual(control.judge('{"type":"ping","t":1}', 1000 + MIN_PING_INTERVAL_MS - 1), { action: 'ignore' }, 'a flood gets no answer');
  assert.equal(control.judge('{"type":"ping","t":2}', 1000 + MIN_PING_INTERVAL_MS).action, 'pong');
});

test('close ends the session politely; anything else is a bad message', () => {
  const control = new DataSocketControl();
  assert.deepEqual(control.judge('{"type":"close"}', 0), { action: 'close' });
  for (const text of ['{"type":"ping","t":"now"}', '{"type":"ping"}', '{"type":"ping","t":null}', '{"type":"hello"}', 'not json', '[]']) {
    const verdict = control.judge(text, 0);
    assert.ok(verdict.action === 'fail', text);
    assert.equal(verdict.error.code, 'bad-message');
    assert.equal(verdict.error.phase, 'relay');
  }
});
