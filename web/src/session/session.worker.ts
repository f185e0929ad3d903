// The session worker: loads the wasm RDP engine (when the build has one) and
// wires it to the data socket (through a port from the page) and to the
// render worker (through a port, so frames never touch the page's thread).
import type { RenderWorkerReply, RenderWorkerRequest } from '../render/renderWorkerProtocol.js';
import { DecodeClock } from './decodeClock.js';
import { parseDataMessage } from './kioskProtocol.js';
import type { RdpClientEngine, RdpEngineModule, RdpFrameSink, RdpTransport } from './rdpClientEngine.js';
import type { DataPortMessage, SessionWorkerReply, SessionWorkerRequest } from './sessionWorkerProtocol.js';

declare const self: DedicatedWorkerGlobalScope;

let engine: RdpClientEngine | null = null;
const decodeClock = new DecodeClock();

function reply(message: SessionWorkerReply): void {
  self.postMessage(message);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function portTransport(port: MessagePort): RdpTransport {
  const transport: RdpTransport = {
    send: (pdus) => port.postMessage({ type: 'pdus', data: pdus } satisfies DataPortMessage, [pdus]),
    close: () => port.postMessage({ type: 'close' } satisfies DataPortMessage),
    onpdus: null,
    onmessage: null,
  };
  port.onmessage = (event: MessageEvent<DataPortMessage>) => {
    const message = event.data;
    if (message.type === 'pdus') {
      decodeClock.input();
      transport.onpdus?.(message.data);
    }
    else if (message.type === 'message') {
      try {
        transport.onmessage?.(parseDataMessage(message.text));
      } catch (error) {
        reply({ type: 'error', message: describe(error) });
      }
    }
  };
  return transport;
}

function renderSink(port: MessagePort): RdpFrameSink {
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
      }
      const decodeMs = decodeClock.frame();
      if (decodeMs !== null) reply({ type: 'decoded', decodeMs });
      const id = nextId++;
      releases.set(id, release);
      // A view over the wasm heap's SharedArrayBuffer crosses without a copy.
      send({ type: 'frame', id, pixels, stride, format, rects });
    },
    onPointer: (shape) => send({ type: 'pointer-shape', shape }),
    onPointerMove: (x, y) => send({ type: 'pointer-move', x, y }),
    onEvent: (event) => reply(event),
  };
}

async function start(request: Extract<SessionWorkerRequest, { type: 'start' }>): Promise<void> {
  if (request.engineUrl === null) {
    reply({ type: 'engine-missing', message: 'this build of the page has no wasm client bundle' });
    return;
  }
  let module: RdpEngineModule;
  try {
    module = (await import(request.engineUrl)) as RdpEngineModule;
  } catch (error) {
    reply({ type: 'engine-missing', message: `the wasm client bundle failed to load: ${describe(error)}` });
    return;
  }
  engine = await module.createEngine();
  reply({ type: 'engine-loaded' });
  await engine.connect(request.settings, portTransport(request.dataPort), renderSink(request.renderPort));
}

self.onmessage = (event: MessageEvent<SessionWorkerRequest>) => {
  const request = event.data;
  if (request.type === 'start') {
    start(request).catch((error: unknown) => reply({ type: 'error', message: describe(error) }));
  } else {
    engine?.disconnect();
    engine = null;
  }
};
