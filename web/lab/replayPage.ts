// Entry of the replay lab page (dist/lab-pages/replay.html; the gateway never serves
// it): the display page's projection pipeline without its control socket and
// screens — SessionHost, the production session worker and render worker, one
// WebGL2 canvas at the desktop's size — projecting whatever the data socket in
// `?data=` plays. The kiosk frame benchmark points it at a recording played
// by a stand-in gateway; the engine is the page's own with the recorded
// client's channel list, timing every frame (replayEngine.ts).
import { RenderWorkerClient } from '../src/render/renderWorkerClient.js';
import { SessionHost } from '../src/session/sessionHost.js';
import { makePixelCanvas } from './pixelCanvas.js';
import { replayTimingChannel, type ReplayFrameTiming, type ReplayProbe } from './replayProbe.js';

const query = new URLSearchParams(window.location.search);
const dataUrl = query.get('data');
const width = Number(query.get('width') ?? 1920);
const height = Number(query.get('height') ?? 1080);
// ?sync=1: GPU-synchronous timing (the renderer reads a pixel back after
// uploads and draws), so upload ms is the texture really holding the pixels;
// without it the render worker runs as on the display page.
const syncTiming = query.get('sync') === '1';

const probe: ReplayProbe = { renderer: null, frames: [], presents: [], lastFrameAtMs: null, problems: [], ended: null };
window.lanternaReplay = probe;
new BroadcastChannel(replayTimingChannel).onmessage = (event: MessageEvent<ReplayFrameTiming>) => {
  probe.frames.push(event.data);
  probe.lastFrameAtMs = performance.now();
};

const canvas = makePixelCanvas(width, height);

const renderer = new RenderWorkerClient(canvas, new URL('../render.worker.js', import.meta.url), { syncTiming }, {
  onready: (kind) => { probe.renderer = kind; },
  onstatistics: (stats) => {
    if (stats.rects === 0) return;
    const { uploadMs, drawMs, rects, pixels, copies, copiedBytes } = stats;
    probe.presents.push({ uploadMs, drawMs, rects, pixels, copies, copiedBytes });
  },
  onerror: (message) => probe.problems.push(`renderer: ${message}`),
});

if (dataUrl === null) {
  probe.problems.push('no ?data= socket to replay from');
} else {
  new SessionHost({
    project: { type: 'project', sessionId: 'replay', sessionToken: 'replay', target: { name: 'recording', host: 'recording', port: 3389 } },
    dataUrl,
    sessionWorkerUrl: new URL('../session.worker.js', import.meta.url),
    engineUrl: new URL('./replayEngine.js', import.meta.url).href,
    renderer,
    desktopWidth: width,
    desktopHeight: height,
  }, (event) => {
    switch (event.kind) {
      case 'engine-missing':
      case 'failed':
        probe.problems.push(`${event.kind}: ${event.message}`);
        break;
      case 'ended':
        probe.ended = event.engineReason ?? event.errorCode ?? event.reason;
        break;
      case 'connected':
      case 'decoded': // the replay engine times every frame itself (replayEngine.ts)
        break;
    }
  });
}
document.body.dataset.ready = 'true';
