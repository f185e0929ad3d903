// One glass-to-glass measurement: a lab display already showing a scene with
// the timestamp strip, a shadow server sending one codec, the real gateway
// and the display page; the page's render worker reads the strip from the
// frames it draws and reports each new stamp's latency on `lanterna:render`
// (`detail.strip`). Shared by the benchmark and the e2e test.
import type { Lab, LabDisplay } from '@lanterna/lab';
import type { WebGlBackend } from '@lanterna/testkit';
import { startKioskRig, type KioskRig } from '../kiosk/kioskRig.js';
import type { ServerCodec } from './glassToGlassCodecs.js';

export interface StripSamples {
  /** Latency of each new stamp drawn (ms). */
  readonly latencies: number[];
  /** Presents, with or without a new stamp. */
  readonly presents: number;
  /** Wall time the samples cover (ms). */
  readonly spanMs: number;
}

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

interface PageSampler {
  latencies: number[];
  presents: number;
  since: number;
}

export async function startGlassToGlassSession(options: {
  lab: Lab;
  display: LabDisplay;
  codec: ServerCodec;
  webgl?: WebGlBackend;
  gpuSync?: boolean;
  /** More of the display URL's query (e.g. "hud=1"). */
  query?: string;
}): Promise<GlassToGlassSession> {
  const { codec } = options;
  const shadow = await options.lab.shadowServer({ display: options.display, auth: 'tls', gfx: codec.gfx, extraArgs: codec.serverArgs });
  const query = [codec.kioskCodecs !== undefined ? `codecs=${codec.kioskCodecs}` : '', options.gpuSync === true ? 'gpusync=1' : '', options.query ?? ''].filter((part) => part !== '').join('&');
  let rig: KioskRig;
  try {
    rig = await startKioskRig({ target: shadow, query, webgl: options.webgl ?? 'swiftshader' });
  } catch (error) {
    await shadow.stop();
    throw error;
  }
  await rig.page.evaluate(() => {
    const sampler: PageSampler = { latencies: [], presents: 0, since: performance.now() };
    (globalThis as unknown as { glassToGlass: PageSampler }).glassToGlass = sampler;
    window.addEventListener('lanterna:render', (event) => {
      const detail = (event as CustomEvent<{ strip?: { latencyMs: number } }>).detail;
      sampler.presents += 1;
      if (detail.strip) sampler.latencies.push(detail.strip.latencyMs);
    });
  });
  return {
    rig,
    startSampling: () => rig.page.evaluate(() => {
      const sampler = (globalThis as unknown as { glassToGlass: PageSampler }).glassToGlass;
      sampler.latencies = [];
      sampler.presents = 0;
      sampler.since = performance.now();
    }),
    samples: () => rig.page.evaluate(() => {
      const sampler = (globalThis as unknown as { glassToGlass: PageSampler }).glassToGlass;
      return { latencies: [...sampler.latencies], presents: sampler.presents, spanMs: performance.now() - sampler.since };
    }),
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
