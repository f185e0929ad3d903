// The session worker: loads the wasm RDP engine (when the build has one) and
// wires it to the data socket (opened here, so PDUs never touch the page's
// thread) and to the render worker (through a port, for the same reason).
import type { RenderWorkerReply, RenderWorkerRequest } from '../render/renderWorkerProtocol.js';
import { DecodeClock } from './decodeClock.js';
import { parseGatewayDataMessage, type PingMessage } from '@lanterna/protocol';
import type { RdpClientEngine, RdpEngineModule, RdpFrameSink, RdpTransport } from './rdpClientEngine.js';
import { DataChannel } from './dataChannel.js';
import { ringViews, writeWave } from '../audio/playbackRing.js';
import { opusDecodable, OpusWaveDecoder } from '../audio/opusWaveDecoder.js';
import type { SessionWorkerReply, SessionWorkerRequest } from './sessionWorkerProtocol.js';

declare const self: DedicatedWorkerGlobalScope;

let engine: RdpClientEngine | null = null;
const decodeClock = new DecodeClock();

function reply(message: SessionWorkerReply): void {
  self.postMessage(message);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** How often the page hears the socket's totals: enough for a per-second HUD. */
const TRAFFIC_REPORT_MS = 250;
/** How often the round trip to the gateway is timed once the session is relaying. */
const PING_INTERVAL_MS = 2000;
/**
 * How long a socket close waits for the engine's own end. The gateway closes
 * right after `ended`, while FreeRDP still works out why the server left (a
 * refused password, say); the page ends the session on whichever comes first,
 * and the engine's reason is the one a person can act on.
 */
const ENGINE_END_GRACE_MS = 3000;

let engineEnded = false;
/** The session's server is a presenter page (secured's trust): no engine reason is waited for at its end. */
let fromPresenterPage = false;

let data: DataChannel | null = null;

/** Opens the data socket at once (in parallel with loading the engine); the engine attaches later. */
function openTransport(url: string, sessionToken: string): RdpTransport {
  const transport: RdpTransport = {
    send: (pdus) => data?.send(pdus),
    close: () => data?.requestClose(),
    onpdus: null,
    onmessage: null,
  };
  const reportTraffic = (): void => {
    if (data) reply({ type: 'traffic', bytesIn: data.bytesIn, pdusIn: data.pdusIn, messagesIn: data.messagesIn });
  };
  const trafficTimer = setInterval(reportTraffic, TRAFFIC_REPORT_MS);
  let pingTimer: ReturnType<typeof setInterval> | undefined;
  const ping = (): void => data?.sendJson({ type: 'ping', t: performance.now() } satisfies PingMessage);
  data = new DataChannel(url, sessionToken, {
    onpdus: (frame) => {
      decodeClock.input();
      transport.onpdus?.(frame);
    },
    ontext: (text) => {
      try {
        const parsed = parseGatewayDataMessage(text);
        if (!parsed.ok) {
          reply({ type: 'error', message: parsed.failure.message });
          return;
        }
        const message = parsed.message;
        if (message.type === 'pong') {
          reply({ type: 'rtt', ms: performance.now() - message.t });
          return;
        }
        reply({ type: 'data-text', text });
        // the gateway answers pings only while relaying, which begins with `secured`
        if (message.type === 'secured') {
          data?.securedWith(message.protocol);
          fromPresenterPage = message.trust === 'presenter';
        }
        if (message.type === 'secured' && pingTimer === undefined) {
          pingTimer = setInterval(ping, PING_INTERVAL_MS);
          ping();
        }
        transport.onmessage?.(message);
      } catch (error) {
        reply({ type: 'error', message: describe(error) });
      }
    },
    onclose: (code, reason) => {
      clearInterval(trafficTimer);
      clearInterval(pingTimer);
      reportTraffic();
      const report = (): void => reply({ type: 'data-closed', code, reason });
      // a presenter page's leg: its end (the page stopped, closed, was stopped) is the gateway's to tell; the engine can add nothing
      if (engine !== null && !engineEnded && !fromPresenterPage) setTimeout(report, ENGINE_END_GRACE_MS);
      else report();
    },
  });
  return transport;
}

function renderSink(port: MessagePort, audioRing: SharedArrayBuffer | undefined): RdpFrameSink {
  // Waves go straight into the queue the page's AudioWorklet reads: no message, no page thread.
  const ring = audioRing ? ringViews(audioRing) : null;
  // Opus packets (when this page claimed Opus) are decoded here, into the same queue
  const opus = ring ? new OpusWaveDecoder(ring, (count) => engine?.audioDropped?.(count)) : null;
  let nextId = 0;
  let width = 0;
  let height = 0;
  const releases = new Map<number, () => void>();
  const send = (message: RenderWorkerRequest): void => port.postMessage(message);
  port.onmessage = (event: MessageEvent<RenderWorkerReply>) => {
    if (event.data.type !== 'frame-consumed') return;
    const release = releases.get(event.data.id);
    releases.delete(event.data.id);
    release?.();
  };
  return {
    onFrame(rects, pixels, frameWidth, frameHeight, stride, format, release) {
      if (frameWidth !== width || frameHeight !== height) {
        width = frameWidth;
        height = frameHeight;
        send({ type: 'desktop-size', width, height });
        reply({ type: 'desktop-size', width, height });
      }
      const inputAt = decodeClock.pendingSince;
      const decodeMs = decodeClock.frame();
      if (decodeMs !== null) reply({ type: 'decoded', decodeMs });
      const id = nextId++;
      releases.set(id, release);
      // A view over the wasm heap's SharedArrayBuffer crosses without a copy.
      // receivedAt is wall-clock ms: the render worker's performance.now() has another origin.
      send({ type: 'frame', id, pixels, stride, format, rects, ...(inputAt !== null ? { receivedAt: performance.timeOrigin + inputAt } : {}) });
    },
    onPointer: (shape) => send({ type: 'pointer-shape', shape }),
    onPointerMove: (x, y) => send({ type: 'pointer-move', x, y }),
    onEvent: (event) => {
      if (event.type === 'disconnected') engineEnded = true;
      reply(event);
    },
    ...(ring && opus ? {
      onAudio: (wave) => ('packet' in wave
        ? opus.decode(wave.packet, wave.frames, wave.format.channels)
        : writeWave(ring, { samples: wave.samples, channels: wave.format.channels, sampleRate: wave.format.sampleRate })),
    } : {}),
  };
}

/** The display's own list of sound formats (?audiocodecs=pcm,opus; absent: all it can decode). */
function opusAllowed(extra: Readonly<Record<string, unknown>> | undefined): boolean {
  const codecs = extra?.audioCodecs;
  return !Array.isArray(codecs) || codecs.includes('opus');
}

async function start(request: Extract<SessionWorkerRequest, { type: 'start' }>): Promise<void> {
  const transport = openTransport(request.dataUrl, request.sessionToken);
  // Opus is claimed where this worker's AudioDecoder takes it, unless the display's ?audiocodecs
  // leaves it out; asked now, while the engine loads, so the answer costs the connection no time
  const audio = request.audioRing !== undefined;
  const opusAnswer = audio && opusAllowed(request.settings.extra) ? opusDecodable() : Promise.resolve(false);
  if (request.engineUrl === null) {
    reply({ type: 'engine-missing', message: 'this build of the page has no wasm client bundle' });
    transport.close();
    return;
  }
  let module: RdpEngineModule;
  try {
    module = (await import(request.engineUrl)) as RdpEngineModule;
  } catch (error) {
    reply({ type: 'engine-missing', message: `the wasm client bundle failed to load: ${describe(error)}` });
    transport.close();
    return;
  }
  engine = await module.createEngine();
  reply({ type: 'engine-loaded' });
  const audioOpus = await opusAnswer;
  await engine.connect({ ...request.settings, audio, audioOpus }, transport, renderSink(request.renderPort, request.audioRing));
}

self.onmessage = (event: MessageEvent<SessionWorkerRequest>) => {
  const request = event.data;
  if (request.type === 'start') {
    start(request).catch((error: unknown) => reply({ type: 'error', message: describe(error) }));
  } else if (request.type === 'mouse') {
    engine?.sendMouse?.(request.flags, request.x, request.y);
  } else if (request.type === 'touch') {
    engine?.sendTouch?.(request.kind, request.id, request.x, request.y, request.pressure);
  } else if (request.type === 'resize') {
    const sent = engine?.requestSize?.(request.width, request.height) ?? false;
    reply({ type: 'resize-asked', width: request.width, height: request.height, sent });
  } else {
    // Polite end: the gateway answers `ended` and closes the socket.
    data?.requestClose();
    engine?.disconnect();
    engine = null;
  }
};
