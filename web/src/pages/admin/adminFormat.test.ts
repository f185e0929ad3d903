// The admin page's words for raw API values: what a stranger reads in the
// audit log and the tables (durations, bytes, reasons as sentences).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { detailText, displayStateText, formatAgo, formatBytes, formatRate, formatSeconds } from './adminFormat.js';

void test('bytes in decimal units, durations in seconds, rates', () => {
  assert.equal(formatBytes(980), '980 B');
  assert.equal(formatBytes(1_234_567), '1.2 MB');
  assert.equal(formatBytes(45_600), '46 kB');
  assert.equal(formatBytes(999_800), '1.0 MB');
  assert.equal(formatSeconds(673), '0.67 s');
  assert.equal(formatSeconds(4210), '4.2 s');
  assert.equal(formatSeconds(65_000), '1 min 05 s');
  assert.equal(formatRate(7.5), '7.5');
  assert.equal(formatRate(24), '24');
  assert.equal(formatRate(130.4), '130');
  assert.equal(formatAgo(1_000_000, 1_000_000 + 20_000), 'just now');
  assert.equal(formatAgo(0, 5 * 60_000), '5 min ago');
  assert.equal(formatAgo(0, 3 * 86_400_000), '3 days ago');
});

void test('audit details read as sentences; no raw key is left for the actions the page knows', () => {
  assert.equal(detailText('projection-started', { setupMs: 673 }), 'Set up in 0.67 s.');
  assert.equal(detailText('projection-ended', { reason: 'server-closed', seconds: 65 }), 'Ended after 1 min 05 s: the presenter’s computer closed the connection.');
  assert.match(detailText('projection-ended', { reason: 'target-unreachable' }), /^Ended: the presenter’s computer cannot be reached\.$/);
  assert.equal(detailText('projection-requested', { target: '10.0.0.5:3389', via: 'presenter', pin: 'used' }), 'To 10.0.0.5:3389 from the presenter page. The room PIN was given.');
  assert.equal(detailText('projection-refused', { code: 'display-busy', reason: 'display "a" is showing another presentation: stop it first' }), 'Display "a" is showing another presentation: stop it first.');
  assert.equal(detailText('display-renamed', { from: 'Board room', to: 'Boardroom 2.01' }), 'Renamed from “Board room” to “Boardroom 2.01”.');
  assert.equal(detailText('display-moved', { from: '', to: 'Floor 2' }), 'Placed in “Floor 2”.');
  assert.equal(detailText('display-created', { name: 'Lobby', location: 'Hall' }), 'Named “Lobby”, in “Hall”.');
  assert.equal(detailText('pin-cleared', { key: '127.0.0.1:3389' }), '127.0.0.1:3389 will be pinned again at its next session.');
  const fingerprint = `sha256:${Array.from({ length: 32 }, () => 'AB').join(':')}`;
  assert.match(detailText('pin-changed', { key: 'rdp:3389', pinned: fingerprint, seen: fingerprint.replace('AB', 'CD') }), /^rdp:3389 showed sha256:CD:AB:AB:AB:AB:…AB:AB:AB instead of its pinned sha256:AB:AB:AB:AB:AB:…AB:AB:AB; refused until an administrator accepts it\.$/);
  for (const [action, detail] of [
    ['projection-started', { setupMs: 1 }], ['projection-ended', { reason: 'stopped', seconds: 3 }], ['projection-requested', { target: 'a:1', via: 'wsd', pin: 'used' }],
    ['display-created', { name: 'x' }], ['display-deleted', { name: 'x' }], ['projection-resumed', { previous: 's1' }],
  ] as const) {
    assert.doesNotMatch(detailText(action, detail), /\b(setupMs|reason|seconds|target|via|pin|name|previous|key|from|to): /, `${action}: no "key: value" left`);
  }
  assert.equal(detailText('something-new', { count: 3 }), 'count: 3', 'an unknown action keeps its raw details');
});

void test('a room with free slots does not read as full', () => {
  assert.deepEqual(displayStateText(false, undefined), { text: 'offline', tone: 'idle' });
  assert.equal(displayStateText(true, undefined).text, 'online');
  assert.equal(displayStateText(true, 's1').text, 'showing a presentation', 'a page with one slot is full with one source');
  assert.equal(displayStateText(true, 's1', { capacity: 1, sources: 1 }).text, 'showing a presentation');
  assert.equal(displayStateText(true, undefined, { capacity: 4, sources: 0 }).text, 'online, 4 sources free');
  assert.equal(displayStateText(true, 's1', { capacity: 4, sources: 2 }).text, '2 of 4 sources showing');
  assert.equal(displayStateText(true, 's1', { capacity: 4, sources: 4 }).text, 'full: 4 of 4 sources');
});
