// The room PIN's pure rules: drawing, when it is due, what a rotation keeps,
// and which PIN a typed one matches.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { drawPin, isDue, isPinShaped, matchPin, normalisePin, rotate, type RoomPinSettings } from './roomPin.js';

const settings: RoomPinSettings = { digits: 6, rotateMs: 60_000, graceMs: 5_000 };

/** A random source that plays the given numbers, then fails the test if asked for more. */
function scripted(...values: number[]): (max: number) => number {
  return (max) => {
    const value = values.shift();
    assert.ok(value !== undefined, 'asked for more random numbers than scripted');
    assert.ok(value < max, `${value} is within [0, ${max})`);
    return value;
  };
}

test('a PIN has exactly the configured digits, zero-padded, and is never the one it replaces', () => {
  assert.equal(drawPin(settings, scripted(42)), '000042');
  assert.equal(drawPin({ ...settings, digits: 4 }, scripted(9999)), '9999');
  assert.equal(drawPin(settings, scripted(123_456, 123_456, 7), ['123456']), '000007', 'redrawn while equal to an avoided PIN');
});

test('a PIN is due when missing, when its timer ran out, or when the configured length changed', () => {
  const record = rotate(undefined, 'first', 1000, settings, scripted(1));
  assert.deepEqual(record, { pin: '000001', issuedAt: 1000, expiresAt: 61_000 });
  assert.equal(isDue(undefined, 0, settings), true);
  assert.equal(isDue(record, 60_999, settings), false);
  assert.equal(isDue(record, 61_000, settings), true);
  assert.equal(isDue(record, 2000, { ...settings, digits: 8 }), true);
});

test('a timer rotation keeps the old PIN for the grace time counted from when it was due; a use keeps nothing', () => {
  const first = rotate(undefined, 'first', 0, settings, scripted(111_111));
  const onTime = rotate(first, 'timer', 60_000, settings, scripted(222_222));
  assert.deepEqual(onTime.previous, { pin: '111111', until: 65_000 });
  const late = rotate(first, 'timer', 63_000, settings, scripted(222_222));
  assert.deepEqual(late.previous, { pin: '111111', until: 65_000 }, 'a late rotation does not stretch the grace');
  const veryLate = rotate(first, 'timer', 600_000, settings, scripted(222_222));
  assert.equal(veryLate.previous, undefined, 'a PIN due long ago gets no grace at all');
  const used = rotate(onTime, 'use', 61_000, settings, scripted(222_222, 111_111, 333_333));
  assert.equal(used.pin, '333333', 'neither the used PIN nor the one in grace comes back at once');
  assert.equal(used.previous, undefined, 'a used PIN opens nothing more');
});

test('a typed PIN matches the current one, or the previous one only within its grace', () => {
  const record = { pin: '222222', issuedAt: 60_000, expiresAt: 120_000, previous: { pin: '111111', until: 65_000 } };
  assert.equal(matchPin(record, '222222', 61_000), 'current');
  assert.equal(matchPin(record, '222 222', 61_000), 'current', 'spaces as the screen groups it');
  assert.equal(matchPin(record, '111111', 64_999), 'previous');
  assert.equal(matchPin(record, '111111', 65_000), undefined, 'grace over');
  assert.equal(matchPin(record, '333333', 61_000), undefined);
  assert.equal(matchPin(record, '', 61_000), undefined);
  assert.equal(matchPin({ pin: '000000', issuedAt: 0, expiresAt: 1 }, '\u0000no previous pin', 0), undefined, 'the stand-in for no previous PIN never matches');
});

test('only digits of the configured length are PIN-shaped, after the screen\'s grouping is taken out', () => {
  assert.equal(normalisePin(' 123-456 '), '123456');
  assert.equal(isPinShaped('123456', 6), true);
  assert.equal(isPinShaped('12345', 6), false);
  assert.equal(isPinShaped('12345a', 6), false);
  assert.equal(isPinShaped('１２３４５６', 6), false, 'full-width digits are not ASCII digits');
});
