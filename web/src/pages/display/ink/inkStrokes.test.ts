// The ink's history: undo takes back strokes and clears, and everything is bounded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InkStrokes, MAX_ACTIONS, MAX_POINTS } from './inkStrokes.js';

test('strokes, clear, and undo of both', () => {
  const ink = new InkStrokes();
  const a = ink.begin('pen', 'red', 4, { x: 0, y: 0 });
  ink.extend(a, { x: 10, y: 0 });
  ink.begin('highlighter', 'yellow', 30, { x: 5, y: 5 });
  assert.equal(ink.visible.length, 2);
  ink.undo();
  assert.deepEqual(ink.visible.map((stroke) => stroke.tool), ['pen']);
  ink.clear();
  assert.equal(ink.isEmpty, true);
  ink.undo();
  assert.deepEqual(ink.visible.map((stroke) => stroke.points.length), [2], 'undo brings a cleared drawing back');
  ink.undo();
  assert.equal(ink.isEmpty, true);
  assert.equal(ink.canUndo, false);
});

test('a stroke stops at MAX_POINTS; a finger at rest adds nothing', () => {
  const ink = new InkStrokes();
  const stroke = ink.begin('pen', 'red', 4, { x: 0, y: 0 });
  assert.equal(ink.extend(stroke, { x: 0, y: 0 }), true);
  assert.equal(stroke.points.length, 1);
  for (let i = 1; i < MAX_POINTS + 10; i++) ink.extend(stroke, { x: i, y: 0 });
  assert.equal(stroke.points.length, MAX_POINTS);
});

test('the history is bounded: the oldest strokes stay drawn but cannot be undone', () => {
  const ink = new InkStrokes();
  for (let i = 0; i < MAX_ACTIONS + 20; i++) ink.begin('pen', 'red', 4, { x: i, y: 0 });
  for (let i = 0; i < MAX_ACTIONS + 20; i++) ink.undo();
  assert.equal(ink.visible.length, 20);
});
