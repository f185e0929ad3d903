// One glass-to-glass measurement: a lab display already showing a scene with
// the timestamp strip, a shadow server sending one codec, the real gateway
// and the display page; the page's render worker reads the strip from the
// frames it draws and reports each new stamp's latency on `lanterna:render`
// (`detail.strip`). Shared by the benchmark and the e2e test.
import type { Lab, LabDisplay } from '@lanterna/lab';
import type { WebGlBackend } from '@lanterna/testkit';
import { startKioskRig, type KioskRig } from '../kiosk/kioskRig.js';
import type { ServerCodec } from './glassToGlassCodecs.js';
import { installStripSampler, startStripSampling, stripSamples, type StripSamples } from './stripSampler.js';

export type { StripSamples } from './stripSampler.js';

export interface GlassToGlassSession {
  readonly rig: KioskRig;
  /** Starts counting from now (drops what came before). */
  startSampling(): Promise<void>;
  /** What the page has counted since startSampling. */
  samples(): Promise<StripSamples>;
  /** The WebGL renderer string the page's GPU process reports. */
  webglRenderer(): Promise<string>;
  close(): Promise<void>;
}

export async function startGlassToGlassSession(options: {
  lab: Lab;
  display: LabDisplay;
  codec: ServerCodec;
  webgl?: WebGlBackend;
  gpuSync?: boolean;
  /** More of the display URL's query (e.g. "hud=1"). */
  query?: string;
  /** The display page's size (default 1920×1080). */
  width?: number;
  height?: number;
}): Promise<GlassToGlassSession> {
  const { codec } = options;
  const shadow = await options.lab.shadowServer({ display: options.display, auth: 'tls', gfx: codec.gfx, extraArgs: codec.serverArgs });
  const query = [codec.kioskCodecs !== undefined ? `codecs=${codec.kioskCodecs}` : '', options.gpuSync === true ? 'gpusync=1' : '', options.query ?? ''].filter((part) => part !== '').join('&');
  let rig: KioskRig;
  try {
    rig = await startKioskRig({ target: shadow, query, webgl: options.webgl ?? 'swiftshader', ...(options.width !== undefined && options.height !== undefined ? { width: options.width, height: options.height } : {}) });
  } catch (error) {
    await shadow.stop();
    throw error;
  }
  await installStripSampler(rig.page);
  return {
    rig,
    startSampling: () => startStripSampling(rig.page),
    samples: (): Promise<StripSamples> => stripSamples(rig.page),
    webglRenderer: () => rig.page.evaluate(() => {
      const gl = document.createElement('canvas').getContext('webgl2');
      if (!gl) return 'no webgl2';
      const info = gl.getExtension('WEBGL_debug_renderer_info');
      return String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
    }),
    async close() {
      try {
        await rig.close();
      } finally {
        await shadow.stop();
      }
    },
  };
}
