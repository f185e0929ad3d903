// The display's wasm client at the panel sizes of issue 28 (2560×1440,
// 3840×2160), served by the presenter's wasm RDP server in this process
// (presenterPipe.mjs joins them as the gateway will): GFX comes up at that
// size and a whole picture arrives pixel for pixel. The client used to abort
// with "Aborted(OOM)" as soon as graphics were reset to 2560×1440 (a 256 MiB
// heap; a GFX desktop cost it about 63 bytes a pixel), and the presenter's
// 256 MiB did not hold an uncompressed 4K picture. A desktop no heap can hold
// must end the client's session as 'out-of-memory', and leave the module working.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { countDifferences, heapStats, startJoined, testPicture, withBothModules } from './presenterPipe.mjs';

const MiB = 1024 * 1024;

let rdp;
let presenters;
withBothModules((loaded) => { ({ rdp, presenters } = loaded); });

/** A client asking for width×height and a presenter serving it, joined and started. */
function joined(t, width, height) {
  const client = rdp.createSession({ width, height, connectTimeoutMs: 20000, username: 'display', password: 'unused' });
  const presenter = presenters.createSession({ width, height });
  const seen = { clientEnd: null, presenterEnd: null, connected: null };
  client.onconnected = (desktop) => { seen.connected = desktop; };
  client.ondisconnected = (end) => { seen.clientEnd = end; };
  presenter.onended = (end) => { seen.presenterEnd = end; };
  const active = new Promise((resolve) => { presenter.onactive = resolve; });
  const pipe = startJoined(t, client, presenter);
  return { client, presenter, seen, pipe, active };
}

/** Resolves with the whole-frame comparison once a frame matches `picture` on its first and last rows. */
function pictureArrives(client, picture, width, height, deadlineMs) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the ${width}x${height} picture did not arrive within ${deadlineMs} ms`)), deadlineMs);
    client.onframe = (frame) => {
      // the frame's pixels are a view of the client's heap: compare them now
      const rows = (y) => countDifferences(frame, picture.subarray(y * width * 4), { x: 0, y, width, height: 1 }).differ;
      if (frame.width !== width || frame.height !== height || rows(0) !== 0 || rows(height - 1) !== 0) return;
      clearTimeout(timer);
      resolve(countDifferences(frame, picture, { x: 0, y: 0, width, height }));
    };
  });
}

for (const [width, height] of [[2560, 1440], [3840, 2160]]) {
  test(`a ${width}x${height} GFX session comes up and shows a picture pixel for pixel`, async (t) => {
    const { client, presenter, seen, pipe, active } = joined(t, width, height);
    await Promise.race([
      active,
      client.closed.then((end) => { throw new Error(`the client ended before GFX was up: ${JSON.stringify(end)}; pipe ${JSON.stringify(pipe.stats)}`); }),
      presenter.ended.then((end) => { throw new Error(`the presenter ended before GFX was up: ${JSON.stringify(end)}`); }),
    ]);
    assert.deepEqual(seen.connected, { width, height });
    const picture = testPicture(width, height, 5);
    const arrived = pictureArrives(client, picture, width, height, 30000);
    presenter.sendFrame({ width, height, pixels: picture, codec: 'planar' });
    const compared = await Promise.race([
      arrived,
      client.closed.then((end) => { throw new Error(`the client ended before the picture: ${JSON.stringify(end)}`); }),
    ]);
    assert.deepEqual(compared, { differ: 0, first: null });
    const heaps = { client: heapStats(rdp.module), presenter: heapStats(presenters.module) };
    for (const [side, heap] of Object.entries(heaps)) {
      assert.equal(heap.refused, 0, `${side}: no allocation was refused`);
      t.diagnostic(`${side} heap at ${width}x${height}: high-water ${(heap.top / MiB).toFixed(0)} MiB of ${(heap.size / MiB).toFixed(0)}, in use ${(heap.inUse / MiB).toFixed(0)} MiB`);
    }
    assert.equal(seen.clientEnd, null);
  });
}

test('a desktop the client\'s heap cannot hold ends its session as out-of-memory, and the module goes on', async (t) => {
  const { client } = joined(t, 8192, 8192);
  const end = await client.closed;
  assert.equal(end.reason, 'out-of-memory', JSON.stringify(end));
  assert.ok(heapStats(rdp.module).refused > 0);
  // no abort: the same module still runs a session
  const next = joined(t, 640, 480);
  await Promise.race([
    next.active,
    next.client.closed.then((e) => { throw new Error(`the next session ended before GFX was up: ${JSON.stringify(e)}`); }),
  ]);
});
