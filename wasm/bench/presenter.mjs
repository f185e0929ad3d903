#!/usr/bin/env node
// The presenter's RDP server (../js/lanternaPresenter.js) feeding the display's
// client (../js/lanternaRdp.js) in one Node process, joined as the gateway will
// join them (../test/presenterPipe.mjs): per codec, how long a whole picture
// takes from sendFrame to the client's decoded surface (encode, GFX framing,
// ZGFX, drdynvc, the client's decode and draw) and how many bytes it costs.
// Not a test. The picture is the tests' synthetic one (gradients: planar
// compresses it far better than a real screen). Also each module's heap
// (high-water mark, in use) once GFX is up and after the pictures, and the
// process's resident memory (both modules: pages of the fixed heaps that were
// never touched cost none).
//   node wasm/bench/presenter.mjs [width] [height] [frames per codec]
import { loadLanternaPresenter, loadLanternaRdp } from '../js/nodeLoader.js';
import { countDifferences, heapStats, pipeLikeGateway, testPicture } from '../test/presenterPipe.mjs';

const width = Number(process.argv[2] ?? 1920);
const height = Number(process.argv[3] ?? 1080);
const frames = Number(process.argv[4] ?? 6);

const [rdp, presenters] = await Promise.all([loadLanternaRdp(), loadLanternaPresenter()]);
const client = rdp.createSession({ width, height, connectTimeoutMs: 15000, username: 'display', password: 'unused' });
const presenter = presenters.createSession({ width, height });
const pipe = pipeLikeGateway(client, presenter);
let waiter = null;
// the first and last rows decide that the whole picture is there (a full compare costs more than the codec)
client.onframe = (frame) => {
  if (!waiter) return;
  const last = { x: 0, y: height - 1, width, height: 1 };
  if (countDifferences(frame, waiter.picture, { x: 0, y: 0, width, height: 1 }).differ === 0
    && countDifferences(frame, waiter.picture.subarray((height - 1) * width * 4), last).differ === 0) {
    const done = waiter;
    waiter = null;
    done.resolve();
  }
};
const active = new Promise((resolve) => { presenter.onactive = resolve; });
const started = performance.now();
presenter.start();
client.start();
await active;
const MiB = 1024 * 1024;
/** Each module's heap in MiB: its high-water mark (dlmalloc never gives memory back) and what is in use now. */
const heaps = () => Object.fromEntries([['client', rdp.module], ['presenter', presenters.module]].map(([side, module]) => {
  const heap = heapStats(module);
  return [side, { topMiB: Math.round(heap.top / MiB), inUseMiB: Math.round(heap.inUse / MiB), sizeMiB: heap.size / MiB, refused: heap.refused }];
}));
const results = { width, height, activeMs: Math.round(performance.now() - started), heapWhenActive: heaps(), codecs: {} };
const pictures = [1, 2, 3].map((seed) => testPicture(width, height, seed));
for (const codec of ['uncompressed', 'planar']) {
  const ms = [];
  let bytes = 0;
  for (let i = 0; i < frames; i += 1) {
    const picture = pictures[i % pictures.length];
    const sentBefore = pipe.stats.toClient;
    const shown = new Promise((resolve) => { waiter = { picture, resolve }; });
    const t = performance.now();
    presenter.sendFrame({ width, height, pixels: picture, codec });
    await shown;
    ms.push(performance.now() - t);
    bytes += pipe.stats.toClient - sentBefore;
  }
  ms.sort((a, b) => a - b);
  results.codecs[codec] = {
    medianMs: Number(ms[ms.length >> 1].toFixed(1)), fastestMs: Number(ms[0].toFixed(1)),
    bytesPerFrame: Math.round(bytes / frames),
  };
}
results.heapAfter = heaps();
results.rssMiB = Math.round(process.memoryUsage().rss / MiB);
console.log(JSON.stringify(results));
client.stop();
await Promise.all([client.closed, presenter.ended]);
await Promise.all([rdp.close(), presenters.close()]);
