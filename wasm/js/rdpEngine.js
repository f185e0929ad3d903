// The web session worker's engine (web/src/session/rdpClientEngine.ts,
// RdpEngineModule): the wasm client behind the page's transport and frame sink.
// Loads lanterna-rdp.js next to this module's build output unless given a factory.
import { probeAvcSupport } from './h264Decoders.js';
import { LanternaRdp } from './lanternaRdp.js';
import { importClassicScript } from './classicScript.js';
import { sessionOptionsFromProject } from './projectSettings.js';

const BUILD_URL = new URL('../build/', import.meta.url);
/** lanterna-rdp.js (about 0.3 MB) must arrive within this, or the session worker says it could not load. */
const SCRIPT_DEADLINE_MS = 30_000;

async function loadFactory() {
  if (typeof globalThis.createLanternaRdp === 'function') return globalThis.createLanternaRdp;
  if (typeof globalThis.importScripts === 'function') {
    await importClassicScript(new URL('lanterna-rdp.js', BUILD_URL).href, SCRIPT_DEADLINE_MS);
    return globalThis.createLanternaRdp;
  }
  // Emscripten's pthread glue is a classic script: evaluating its text in a
  // module worker would need unsafe-eval, so the host must be a classic worker
  throw new Error('the wasm client must run in a classic worker (importScripts is missing)');
}

let shared = null;
async function sharedClient() {
  shared ??= loadFactory().then((factory) => LanternaRdp.load(factory, {
    locateFile: (name) => new URL(name, BUILD_URL).href,
    mainScriptUrlOrBlob: new URL('lanterna-rdp.js', BUILD_URL).href,
  }));
  return shared;
}

class WasmRdpEngine {
  constructor(rdp) {
    this.rdp = rdp;
    this.session = null;
  }

  async connect(settings, transport, sink) {
    const desktop = { width: settings.desktopWidth, height: settings.desktopHeight };
    // AVC is advertised only if this browser's VideoDecoder says it can decode it here
    const videoDecoder = await probeAvcSupport(desktop);
    // extra: the project message's settings (assistance, colour depth, codecs, performance), display's own last
    const session = this.rdp.createSession({
      ...sessionOptionsFromProject({ credentials: settings.credentials, settings: settings.extra ?? {}, target: settings.target }, desktop),
      ...(settings.desktopScale !== undefined ? { desktopScale: settings.desktopScale } : {}),
      ...(settings.deviceScale !== undefined ? { deviceScale: settings.deviceScale } : {}),
      videoDecoder,
      // sound (settings.audio: the page has an output): rdpsnd with our device; each
      // wave goes to the sink, whose answer (ms until heard) the Wave Confirm reports
      ...(settings.audio ? { audio: true, audioOpus: settings.audioOpus === true } : {}),
    });
    this.session = session;
    session.onsend = (bytes) => transport.send(bytes.buffer);
    session.onconnected = () => sink.onEvent({ type: 'connected' });
    session.ontouchoffered = (offered) => sink.onEvent({ type: 'touch-offered', offered });
    session.onframe = (frame) => new Promise((release) => {
      const rects = [];
      for (let i = 0; i < frame.rects.length; i += 4) {
        rects.push({ x: frame.rects[i], y: frame.rects[i + 1], width: frame.rects[i + 2], height: frame.rects[i + 3] });
      }
      sink.onFrame(rects, frame.pixels, frame.width, frame.height, frame.stride,
        frame.layout === 'bgrx' ? 'bgra' : 'rgba', release);
    });
    session.onpointer = (p) => {
      if (p.kind === 'shape') {
        sink.onPointer({ pixels: p.rgba, width: p.width, height: p.height, hotspotX: p.hotX, hotspotY: p.hotY, format: 'rgba' });
      } else if (p.kind === 'hidden') sink.onPointer(null);
      else if (p.kind === 'position') sink.onPointerMove(p.x, p.y);
    };
    if (settings.audio) {
      session.onaudio = (wave) => sink.onAudio?.(wave.format.encoding === 'opus'
        ? { packet: wave.packet, frames: wave.frames, format: wave.format }
        : { samples: wave.samples, format: wave.format }) ?? 0;
    }
    session.ondisconnected = (end) => {
      sink.onEvent({ type: 'disconnected', reason: end.reason });
      transport.close();
    };
    transport.onpdus = (frame) => session.receive(frame);
    transport.onmessage = (message) => {
      if (message.type === 'secured') session.secured(message.publicKey);
      else if (message.type === 'ended' || message.type === 'error') session.endOfInput();
    };
    session.start();
  }

  disconnect() {
    this.session?.stop();
  }

  /** Display Control: false when the server never opened the channel (the page letterboxes). */
  requestSize(width, height) {
    return this.session?.requestSize(width, height) ?? false;
  }

  /** The page could not play `count` waves it took: counted in the session's droppedAudio. */
  audioDropped(count) {
    this.session?.audioDropped(count);
  }

  /** One pointer event as RDP mouse input (FreeRDP's PTR_FLAGS_*, desktop pixels): false when not sent. */
  sendMouse(flags, x, y) {
    return this.session?.sendMouse(flags, x, y) ?? false;
  }

  /** One change of a touch contact through RDPEI (multi-touch): false when not sent (not offered). */
  sendTouch(kind, id, x, y, pressure) {
    return this.session?.sendTouch(kind, id, x, y, pressure) ?? false;
  }
}

/** RdpEngineModule.createEngine */
export async function createEngine() {
  return new WasmRdpEngine(await sharedClient());
}
