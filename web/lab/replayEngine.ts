// The engine the replay lab page hands its session worker: the page's own
// (wasm/js/rdpEngine.js, loaded from where the display page loads it) with two
// lab-only additions.
// - Its sessions also ask for the recorded client's static channels: without
//   them the recorded server's channel ids land on the wrong channels and a
//   GFX recording draws nothing. rdpEngine.js takes no raw FreeRDP settings
//   (the gateway must not be able to set them), so the lab widens
//   LanternaRdp's createSession in this worker only.
// - Every end of paint is timed (with the module's H.264 totals, when it decoded any)
//   and reported on a BroadcastChannel. The stand-in
//   gateway sends the whole recording at once, so the RDP thread never waits
//   for input: from one frame's hand-back to the next end of paint it decodes.
//   (The session worker's DecodeClock times only the first paint after new
//   input, which a replay gives once.)
import { recordedClientSettings } from '../../wasm/tools/recordingReplay.js';
import type { RdpClientEngine, RdpEngineModule, RdpFrameSink, RdpTransport } from '../src/session/rdpClientEngine.js';
import { replayTimingChannel, type ReplayFrameTiming } from './replayProbe.js';

type CreateSession = (this: H264Totals, options?: { freerdpSettings?: Record<string, unknown> }) => unknown;
interface H264Totals { readonly h264?: { readonly stats: { readonly pictures: number; readonly decodeMs: number; readonly skipped: number; readonly failures: number } } }
interface LanternaRdpModule { LanternaRdp: { prototype: { createSession: CreateSession } } }

const wasmJs = new URL('../wasm/js/', import.meta.url);
let widened = false;
/** The LanternaRdp whose sessions this worker runs (captured in createSession), for its H.264 totals. */
let client: H264Totals | null = null;
function remember(rdp: H264Totals): void {
  client = rdp;
}

function widenChannels(LanternaRdp: LanternaRdpModule['LanternaRdp']): void {
  if (widened) return;
  widened = true;
  const createSession = LanternaRdp.prototype.createSession;
  LanternaRdp.prototype.createSession = function (this: H264Totals, options = {}) {
    remember(this);
    return createSession.call(this, { ...options, freerdpSettings: { ...recordedClientSettings, ...options.freerdpSettings } });
  };
}

/** Times the engine between the transport's first input, each end of paint and each hand-back. */
function timed(engine: RdpClientEngine): RdpClientEngine {
  const channel = new BroadcastChannel(replayTimingChannel);
  let busySince: number | null = null;
  return {
    connect(settings, transport, sink) {
      const inner: RdpTransport = { send: (pdus) => transport.send(pdus), close: () => transport.close(), onpdus: null, onmessage: null };
      transport.onpdus = (frame) => {
        busySince ??= performance.now();
        inner.onpdus?.(frame);
      };
      transport.onmessage = (message) => inner.onmessage?.(message);
      const timedSink: RdpFrameSink = {
        onFrame(rects, pixels, width, height, stride, format, release) {
          const paintedAt = performance.now();
          const decodeMs = paintedAt - (busySince ?? paintedAt);
          const area = rects.reduce((total, r) => total + r.width * r.height, 0);
          sink.onFrame(rects, pixels, width, height, stride, format, () => {
            busySince = performance.now();
            const h264 = client?.h264?.stats;
            const timing: ReplayFrameTiming = {
              decodeMs, handBackMs: busySince - paintedAt, rects: rects.length, pixels: area,
              ...(h264 && h264.pictures > 0 ? { h264: { pictures: h264.pictures, decodeMs: h264.decodeMs, skipped: h264.skipped, failures: h264.failures } } : {}),
            };
            channel.postMessage(timing);
            release();
          });
        },
        onPointer: (shape) => sink.onPointer(shape),
        onPointerMove: (x, y) => sink.onPointerMove(x, y),
        onEvent: (event) => sink.onEvent(event),
      };
      return engine.connect(settings, inner, timedSink);
    },
    disconnect: () => engine.disconnect(),
  };
}

export async function createEngine(): Promise<RdpClientEngine> {
  const [{ LanternaRdp }, pageEngine] = await Promise.all([
    import(new URL('lanternaRdp.js', wasmJs).href) as Promise<LanternaRdpModule>,
    import(new URL('rdpEngine.js', wasmJs).href) as Promise<RdpEngineModule>,
  ]);
  widenChannels(LanternaRdp);
  return timed(await pageEngine.createEngine());
}
