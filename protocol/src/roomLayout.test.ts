// The room's layouts (issue 29): one source fills the panel whatever the
// layout; two stand side by side; 2×2 for three or four; one large and the
// others stacked; full shows only the large one. Slots tile the panel
// without overlap, and pixels meet without a gap.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ROOM_LAYOUTS, slotPixels, slotRects, type SlotRect } from './roomLayout.js';
import { parseGatewayControlMessage } from './kioskMessages.js';

const area = (rects: SlotRect[]): number => rects.reduce((sum, rect) => sum + rect.width * rect.height, 0);

test('one source fills the panel in every layout; none gives nothing', () => {
  for (const layout of ROOM_LAYOUTS) {
    assert.deepEqual(slotRects(layout, [2], 0), [{ slot: 2, x: 0, y: 0, width: 1, height: 1 }], layout);
    assert.deepEqual(slotRects(layout, [], 0), []);
  }
});

test('each layout places the sources as it says, covering the panel once', () => {
  assert.deepEqual(slotRects('side-by-side', [0, 3], 0).map((rect) => [rect.slot, rect.x, rect.width, rect.height]), [[0, 0, 0.5, 1], [3, 0.5, 0.5, 1]]);
  assert.deepEqual(slotRects('grid', [0, 1], 0).map((rect) => [rect.x, rect.y, rect.width, rect.height]), [[0, 0, 0.5, 1], [0.5, 0, 0.5, 1]], 'two in a grid stand side by side');
  assert.deepEqual(slotRects('grid', [0, 1, 2], 0).map((rect) => [rect.x, rect.y]), [[0, 0], [0.5, 0], [0, 0.5]]);
  const large = slotRects('one-large', [0, 1, 2, 3], 2);
  assert.deepEqual(large.find((rect) => rect.slot === 2), { slot: 2, x: 0, y: 0, width: 0.75, height: 1 });
  assert.deepEqual(large.filter((rect) => rect.slot !== 2).map((rect) => [rect.slot, rect.x, rect.y]), [[0, 0.75, 0], [1, 0.75, 1 / 3], [3, 0.75, 2 / 3]]);
  const full = slotRects('full', [0, 1, 3], 3);
  assert.deepEqual(full.map((rect) => [rect.slot, rect.width]), [[0, 0], [1, 0], [3, 1]], 'full shows the large one only');
  assert.deepEqual(slotRects('full', [1, 2], 0).map((rect) => [rect.slot, rect.width]), [[1, 1], [2, 0]], 'an empty large slot: the lowest stands in');
  for (const layout of ROOM_LAYOUTS) {
    for (const occupied of [[0, 1], [0, 1, 2], [0, 1, 2, 3]]) {
      const covered = area(slotRects(layout, occupied, 0));
      assert.ok(Math.abs(covered - (layout === 'grid' && occupied.length === 3 ? 0.75 : 1)) < 1e-9, `${layout} with ${String(occupied.length)}: ${String(covered)}`);
    }
  }
});

test('pixels of neighbouring slots meet without a gap on an odd panel', () => {
  const [left, right] = slotRects('side-by-side', [0, 1, 2], 0).map((rect) => slotPixels(rect, { width: 1921, height: 1081 }));
  assert.ok(left && right);
  assert.equal(left.x + left.width, right.x);
  assert.equal(left.height, 1081);
});

test('the layout message is read by its schema; a slot out of range is refused', () => {
  const message = { type: 'layout', layout: 'grid', large: 0, mode: 'open', slots: [{ slot: 1, sessionId: 's', label: 'Ann', x: 0, y: 0, width: 0.5, height: 1 }] };
  const read = parseGatewayControlMessage(JSON.stringify(message));
  assert.ok(read.ok);
  assert.deepEqual(read.message, message);
  const bad = parseGatewayControlMessage(JSON.stringify({ ...message, slots: [{ ...message.slots[0], slot: 4 }] }));
  assert.equal(bad.ok, false);
  const project = parseGatewayControlMessage(JSON.stringify({ type: 'project', sessionId: 's', sessionToken: 't', target: { name: 'n', host: 'h', port: 3389 }, slot: 3 }));
  assert.ok(project.ok && project.message.type === 'project' && project.message.slot === 3);
});
