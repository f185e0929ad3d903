// The page's H.264 decoder (wasm/js/h264Decoders.js, WebCodecs) when the
// stream goes wrong, in Chromium, driven through its decode records exactly as
// FreeRDP's thread drives it (h264_webcodecs.c), over a shared heap of its own.
// Streams are made in the page by WebCodecs' VideoEncoder (Annex B, like RDP's
// AVC420): a corrupted access unit, a resolution change mid-stream, a profile
// no decoder supports, a stream without an IDR picture. Each must end in
// recovery (pictures again, equal to a clean decode) or in a clear status
// (`UNSUPPORTED` / `FAILED`, which the C side turns into the session's end).
// The same end through the whole client: h264Replay.test.ts (unsupported profile).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { labDir, publicDir, startStaticServer } from '@lanterna/testkit';
import { openKiosk, type KioskBrowser } from './kioskBrowser.js';

interface Outcome {
  readonly statuses: number[];
  readonly lastError: string | null;
  readonly lumaDb: number | null;
  readonly lumaMean: number | null;
}

async function inPage<T>(body: (kiosk: KioskBrowser) => Promise<T>): Promise<T> {
  const web = await startStaticServer(publicDir, labDir);
  const kiosk = await openKiosk(`${web.origin}/lab/lab.html`, 640, 480);
  try {
    return await body(kiosk);
  } finally {
    await kiosk.close();
    await web.close();
  }
}

type Scenario = 'corrupted' | 'resize' | 'profile' | 'no-idr';

/** Runs one scenario in the page; everything inside the function runs in Chromium. */
async function scenario(kiosk: KioskBrowser, which: Scenario): Promise<Outcome> {
  return kiosk.page.evaluate(async ({ which, url }) => {
    const { H264Decoders } = await import(url) as { H264Decoders: new (m: object) => { decode(r: number): void; decoders: Map<number, { lastError?: string }> } };
    const W = 320;
    const H = 240;
    const sab = new SharedArrayBuffer(16 << 20);
    const heap32 = new Int32Array(sab);
    const heap8 = new Uint8Array(sab);
    let top = 4096;
    const alloc = (n: number): number => { const p = (top + 63) & ~63; top = p + n; return p; };
    const module = { HEAP32: heap32, HEAPU8: heap8, _free: () => {} };
    const decoders = new H264Decoders(module);

    /** One context's record and planes, surface W×H. */
    const context = () => {
      const record = alloc(48);
      const planes = [alloc(W * H), alloc(W * H / 4), alloc(W * H / 4)];
      const strides = [W, W / 2, W / 2];
      const data = alloc(1 << 20);
      let sequence = 0;
      return {
        record, planes,
        async decode(unit: Uint8Array): Promise<number> {
          sequence += 1;
          heap8.set(unit, data);
          const base = record >> 2;
          heap32[base + 1] = -1;
          heap32[base + 2] = data;
          heap32[base + 3] = unit.length;
          for (let i = 0; i < 3; i++) { heap32[base + 4 + i] = planes[i] ?? 0; heap32[base + 7 + i] = strides[i] ?? 0; }
          heap32[base + 10] = W;
          heap32[base + 11] = H;
          Atomics.store(heap32, base, (sequence << 4) | 1);
          decoders.decode(record);
          const deadline = performance.now() + 10_000;
          while ((Atomics.load(heap32, base) & 0xf) !== 3) {
            if (performance.now() > deadline) throw new Error('no answer within 10 s');
            await new Promise((resolve) => setTimeout(resolve, 1));
          }
          return heap32[base + 1] ?? 0;
        },
        luma: () => heap8.slice(planes[0], (planes[0] ?? 0) + W * H),
        lastError: () => decoders.decoders.get(record)?.lastError ?? null,
      };
    };

    /** Frames drawn on a canvas (a moving square on a gradient), encoded as Annex B. */
    const encode = async (count: number, width: number, height: number, keyAt: number[]): Promise<Uint8Array[]> => {
      const canvas = new OffscreenCanvas(width, height);
      const g = canvas.getContext('2d');
      if (!g) throw new Error('no 2d context');
      const units: Uint8Array[] = [];
      const encoder = new VideoEncoder({
        output: (chunk) => { const b = new Uint8Array(chunk.byteLength); chunk.copyTo(b); units.push(b); },
        error: (e) => { throw e; },
      });
      encoder.configure({ codec: 'avc1.42E01E', width, height, avc: { format: 'annexb' }, latencyMode: 'realtime', bitrate: 2_000_000 });
      for (let i = 0; i < count; i++) {
        const gradient = g.createLinearGradient(0, 0, width, height);
        gradient.addColorStop(0, '#204080');
        gradient.addColorStop(1, '#e0c040');
        g.fillStyle = gradient;
        g.fillRect(0, 0, width, height);
        g.fillStyle = '#ffffff';
        g.fillRect(10 + i * 6, 40 + i * 3, 60, 60);
        const frame = new VideoFrame(canvas, { timestamp: i * 33_333 });
        encoder.encode(frame, { keyFrame: keyAt.includes(i) });
        frame.close();
      }
      await encoder.flush();
      encoder.close();
      return units;
    };

    const psnrOf = (a: Uint8Array, b: Uint8Array): number => {
      let sq = 0;
      for (let i = 0; i < a.length; i++) { const d = (a[i] ?? 0) - (b[i] ?? 0); sq += d * d; }
      return sq === 0 ? Infinity : 10 * Math.log10((255 * 255) / (sq / a.length));
    };

    const statuses: number[] = [];
    if (which === 'corrupted') {
      const units = await encode(30, W, H, [0, 20]);
      const clean = context();
      for (const u of units) await clean.decode(u);
      const broken = context();
      for (const [i, u] of units.entries()) {
        let unit = u;
        if (i === 5) {
          unit = u.slice();
          let seed = 7;
          // keep the NAL headers at the front, scramble the slice data behind them
          for (let j = Math.floor(unit.length * 0.3); j < unit.length; j++) { seed = (seed * 1103515245 + 12345) >>> 0; unit[j] = seed >>> 24; }
        }
        statuses.push(await broken.decode(unit));
      }
      const db = psnrOf(clean.luma(), broken.luma());
      return { statuses, lastError: broken.lastError(), lumaDb: Number.isFinite(db) ? db : 999, lumaMean: null };
    }
    if (which === 'resize') {
      const small = await encode(8, W, H, [0]);
      const large = await encode(8, W * 2, H * 2, [0]);
      const c = context();
      for (const u of [...small, ...large]) statuses.push(await c.decode(u));
      const luma = c.luma();
      let sum = 0;
      for (const v of luma) sum += v;
      return { statuses, lastError: c.lastError(), lumaDb: null, lumaMean: sum / luma.length };
    }
    if (which === 'profile') {
      const units = await encode(3, W, H, [0]);
      const first = (units[0] ?? new Uint8Array()).slice();
      for (let i = 0; i + 4 < first.length; i++) {
        if (first[i] === 0 && first[i + 1] === 0 && first[i + 2] === 1 && ((first[i + 3] ?? 0) & 0x1f) === 7) { first[i + 4] = 0x2a; break; }
      }
      const c = context();
      statuses.push(await c.decode(first));
      return { statuses, lastError: c.lastError(), lumaDb: null, lumaMean: null };
    }
    const units = await encode(4, W, H, [0]);
    const c = context();
    for (let i = 0; i < 70; i++) statuses.push(await c.decode(units[1 + (i % 3)] ?? new Uint8Array()));
    return { statuses, lastError: c.lastError(), lumaDb: null, lumaMean: null };
  }, { which, url: new URL('/wasm/js/h264Decoders.js', kiosk.page.url()).href });
}

const PICTURE = 1;
const SKIPPED = -1;
const UNSUPPORTED = -2;
const FAILED = -3;

test('a corrupted access unit: the decoder recovers at the next IDR picture and ends equal to a clean decode', async () => {
  const outcome = await inPage((kiosk) => scenario(kiosk, 'corrupted'));
  console.log(`# corrupted AU at frame 5, IDR at 20: statuses ${outcome.statuses.join(' ')}; last error ${outcome.lastError ?? 'none'}; final luma vs clean ${outcome.lumaDb?.toFixed(2)} dB`);
  assert.deepEqual(outcome.statuses.slice(0, 5), [PICTURE, PICTURE, PICTURE, PICTURE, PICTURE]);
  assert.ok(!outcome.statuses.includes(FAILED) && !outcome.statuses.includes(UNSUPPORTED), 'one corrupted unit ended the stream');
  assert.ok(outcome.statuses.slice(20).every((s) => s === PICTURE), `no recovery after the IDR picture: ${outcome.statuses.slice(20).join(' ')}`);
  assert.ok((outcome.lumaDb ?? 0) >= 40, `the last picture is ${outcome.lumaDb?.toFixed(2)} dB from a clean decode`);
});

test('a resolution change mid-stream (new SPS at an IDR): pictures continue, clipped to the surface', async () => {
  const outcome = await inPage((kiosk) => scenario(kiosk, 'resize'));
  console.log(`# 320×240 then 640×480 into a 320×240 surface: statuses ${outcome.statuses.join(' ')}; last error ${outcome.lastError ?? 'none'}; luma mean ${outcome.lumaMean?.toFixed(1)}`);
  assert.ok(outcome.statuses.every((s) => s === PICTURE || s === SKIPPED), `statuses ${outcome.statuses.join(' ')}`);
  assert.ok(outcome.statuses.slice(-4).every((s) => s === PICTURE), 'no pictures after the change');
  assert.ok((outcome.lumaMean ?? 0) > 30, 'the surface holds no picture');
});

test('a profile no decoder supports: UNSUPPORTED at once, with the codec named', async () => {
  const outcome = await inPage((kiosk) => scenario(kiosk, 'profile'));
  console.log(`# SPS profile_idc 42: statuses ${outcome.statuses.join(' ')}; ${outcome.lastError ?? ''}`);
  assert.deepEqual(outcome.statuses, [UNSUPPORTED]);
  assert.match(outcome.lastError ?? '', /avc1\.2A/);
});

test('a stream that never brings an IDR picture: skipped, then FAILED after 60 access units', async () => {
  const outcome = await inPage((kiosk) => scenario(kiosk, 'no-idr'));
  assert.ok(outcome.statuses.slice(0, 60).every((s) => s === SKIPPED), `statuses ${outcome.statuses.slice(0, 60).join(' ')}`);
  assert.equal(outcome.statuses[60], FAILED);
  assert.match(outcome.lastError ?? '', /no IDR picture/);
});
