import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DecodeClock } from './decodeClock.js';

test('decode time runs from the first input after a frame to the next frame', () => {
  let now = 100;
  const clock = new DecodeClock(() => now);
  assert.equal(clock.frame(), null, 'a paint without input has no decode time');
  clock.input();
  now = 103;
  clock.input(); // later inputs of the same frame do not move the start
  now = 110.5;
  assert.equal(clock.pendingSince, 100, 'the frame\'s input began with the first one');
  assert.equal(clock.frame(), 10.5);
  assert.equal(clock.pendingSince, null);
  now = 200;
  assert.equal(clock.frame(), null, 'the clock restarts after each frame');
  clock.input();
  now = 201.25;
  assert.equal(clock.frame(), 1.25);
});
