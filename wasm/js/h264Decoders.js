// The JS half of the wasm client's H.264 backend (wasm/src/h264_webcodecs.c):
// FreeRDP's decoding thread posts a decode record (one per H.264 context) and
// sleeps on its first word; here a WebCodecs VideoDecoder decodes the access
// unit and the picture is copied (VideoFrame.copyTo, I420) straight into the
// context's planes in the wasm heap, then the word is set and the thread woken.
// FreeRDP does the rest (AVC444 combination, colour conversion, composition).
//
// Failures: a decoder that reports an error (or swallows a frame) is closed and a
// new one waits for the next IDR picture; until then updates are skipped, so the
// screen keeps its last good picture. A second failure before any good picture, or
// no IDR within KEY_WAIT, ends the session (`video-decode-failed`); no WebCodecs,
// or a stream whose profile it cannot decode, ends it at once (`video-unsupported`).
import { codecString, inspectAccessUnit } from './annexB.js';

// int32 words of a record and the phases of its first word (wasm/src/h264_webcodecs.h)
const W = Object.freeze({ TICKET: 0, STATUS: 1, DATA: 2, SIZE: 3, PLANES: 4, STRIDES: 7, WIDTH: 10, HEIGHT: 11 });
const PHASE = Object.freeze({ PENDING: 1, WRITING: 2, DONE: 3 });
export const STATUS = Object.freeze({ PICTURE: 1, NO_PICTURE: 0, SKIPPED: -1, UNSUPPORTED: -2, FAILED: -3 });

/** How long one access unit may take before its decoder counts as failed. */
const OUTPUT_DEADLINE_MS = 3000;
/** After a failure: access units, and ms, to wait for an IDR picture before giving up. */
const KEY_WAIT = Object.freeze({ units: 60, ms: 5000 });

/** Is there a WebCodecs VideoDecoder in this JS environment (browsers: yes; Node: no)? */
export function webCodecsAvailable() {
  return typeof globalThis.VideoDecoder === 'function' && typeof globalThis.EncodedVideoChunk === 'function';
}

// Baseline, Main and High up to level 5.1: what Windows and FreeRDP servers send
const AVC_PROBES = ['avc1.42E01F', 'avc1.4D4028', 'avc1.640033'];

/**
 * What the client may advertise: AVC420 and AVC444 need the same 4:2:0 decoder
 * (AVC444 is two 4:2:0 streams), at the desktop's size.
 * @param {{ width: number, height: number }} desktop
 * @returns {Promise<{ avc420: boolean, avc444: boolean, reason: string }>}
 */
export async function probeAvcSupport(desktop) {
  if (!webCodecsAvailable()) return { avc420: false, avc444: false, reason: 'no WebCodecs VideoDecoder in this environment' };
  for (const codec of AVC_PROBES) {
    let result;
    try {
      result = await globalThis.VideoDecoder.isConfigSupported({
        codec, codedWidth: desktop.width, codedHeight: desktop.height, optimizeForLatency: true,
      });
    } catch (err) {
      return { avc420: false, avc444: false, reason: `VideoDecoder.isConfigSupported(${codec}) threw: ${err?.message ?? err}` };
    }
    if (!result.supported) return { avc420: false, avc444: false, reason: `VideoDecoder does not support ${codec} at ${desktop.width}×${desktop.height}` };
  }
  return { avc420: true, avc444: true, reason: 'supported' };
}

/** Every H.264 context's decoder in one module, keyed by its record's address. */
export class H264Decoders {
  constructor(module) {
    this.module = module;
    /** @type {Map<number, RecordDecoder>} */
    this.decoders = new Map();
    /** Totals for benchmarks and the HUD: pictures, decode ms (decode() → picture in the heap). */
    this.stats = { pictures: 0, decodeMs: 0, skipped: 0, failures: 0, decoders: 0 };
  }

  /** LT_EVENT_H264_DECODE */
  decode(record) {
    let decoder = this.decoders.get(record);
    if (!decoder) {
      decoder = new RecordDecoder(this.module, record, this.stats);
      this.decoders.set(record, decoder);
    }
    decoder.enqueue();
  }

  /** LT_EVENT_H264_CLOSE: the context is gone; its record is ours to free once no answer is under way. */
  close(record) {
    const decoder = this.decoders.get(record);
    this.decoders.delete(record);
    if (!decoder) {
      this.module._free(record);
      return;
    }
    decoder.close().finally(() => this.module._free(record));
  }
}

class RecordDecoder {
  constructor(module, record, stats) {
    this.module = module;
    this.record = record;
    this.stats = stats;
    this.base = record >> 2;
    this.decoder = null;
    this.config = null;
    this.timestamp = 0;
    this.failedSince = null; // { units, at } after a failure, until a good picture
    this.waiting = null; // { resolve, reject } for the one access unit in flight
    this.queue = Promise.resolve();
  }

  enqueue() {
    // FreeRDP's thread waits for each answer, so there is one at a time; the chain only keeps order
    this.queue = this.queue.then(() => this.#answer());
  }

  async close() {
    await this.queue;
    this.#dropDecoder();
  }

  async #answer() {
    const m = this.module;
    const heap = m.HEAP32;
    const ticket = Atomics.load(heap, this.base + W.TICKET);
    if ((ticket & 0xf) !== PHASE.PENDING) return; // abandoned by C (stop, deadline)
    const sequence = ticket & ~0xf;
    const data = heap[this.base + W.DATA] >>> 0;
    const size = heap[this.base + W.SIZE] >>> 0;
    // EncodedVideoChunk copies its data; a copy also keeps the parse off shared memory
    const unit = m.HEAPU8.slice(data, data + size);
    let status;
    try {
      status = await this.#decode(unit, sequence);
    } catch (err) {
      // a bug here must not leave FreeRDP's thread waiting for its deadline
      this.lastError = `decode threw: ${err?.message ?? err}`;
      status = STATUS.FAILED;
    }
    if (status !== null) this.#finish(sequence | PHASE.PENDING, status);
  }

  /** @returns {Promise<number | null>} a status to answer with, or null when already answered */
  async #decode(unit, sequence) {
    if (!webCodecsAvailable()) return STATUS.UNSUPPORTED;
    const au = inspectAccessUnit(unit);
    if (!this.decoder || this.decoder.state === 'closed') {
      if (!au.idr) return this.#skipUntilKey();
      const status = await this.#open(au);
      if (status !== null) return status;
    }
    const started = performance.now();
    const output = new Promise((resolve, reject) => { this.waiting = { resolve, reject }; });
    let timer;
    const deadline = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no picture within ${OUTPUT_DEADLINE_MS} ms`)), OUTPUT_DEADLINE_MS);
    });
    let frame;
    try {
      this.decoder.decode(new globalThis.EncodedVideoChunk({ type: au.idr ? 'key' : 'delta', timestamp: this.timestamp++, data: unit }));
      frame = await Promise.race([output, deadline]);
    } catch (err) {
      this.lastError = String(err?.message ?? err);
      return this.#failed();
    } finally {
      clearTimeout(timer);
      this.waiting = null;
    }
    // claim the record: C may have given up meanwhile, and then its planes are not ours
    const heap = this.module.HEAP32;
    if (Atomics.compareExchange(heap, this.base + W.TICKET, sequence | PHASE.PENDING, sequence | PHASE.WRITING) !== (sequence | PHASE.PENDING)) {
      frame.close();
      return null;
    }
    let status = STATUS.SKIPPED;
    try {
      status = await this.#copyPlanes(frame);
    } catch (err) {
      this.lastError = `copyTo failed: ${err?.message ?? err}`;
    } finally {
      frame.close();
    }
    if (status === STATUS.PICTURE) {
      this.failedSince = null;
      this.stats.pictures += 1;
      this.stats.decodeMs += performance.now() - started;
    } else {
      this.stats.skipped += 1;
    }
    this.#finish(sequence | PHASE.WRITING, status);
    return null;
  }

  async #open(au) {
    const config = {
      codec: au.sps ? codecString(au.sps) : 'avc1.640033',
      optimizeForLatency: true,
      hardwareAcceleration: 'no-preference',
      ...(au.sps?.width ? { codedWidth: au.sps.width, codedHeight: au.sps.height } : {}),
    };
    let supported = false;
    try {
      supported = (await globalThis.VideoDecoder.isConfigSupported(config)).supported === true;
    } catch (err) {
      this.lastError = `isConfigSupported: ${err?.message ?? err}`;
    }
    if (!supported) {
      this.lastError ??= `${config.codec} is not supported by this VideoDecoder`;
      return STATUS.UNSUPPORTED;
    }
    try {
      this.decoder = new globalThis.VideoDecoder({
        output: (frame) => {
          if (this.waiting) this.waiting.resolve(frame);
          else frame.close(); // a late picture for an access unit already given up
        },
        error: (err) => { this.waiting?.reject(err); },
      });
      this.decoder.configure(config);
    } catch (err) {
      this.lastError = `configure ${config.codec}: ${err?.message ?? err}`;
      this.#dropDecoder();
      return STATUS.UNSUPPORTED;
    }
    this.config = config;
    this.stats.decoders += 1;
    return null;
  }

  /** A decoder failed: a new one waits for an IDR picture, unless this happened twice in a row. */
  #failed() {
    this.stats.failures += 1;
    this.#dropDecoder();
    if (this.failedSince) return STATUS.FAILED;
    this.failedSince = { units: 0, at: performance.now() };
    return STATUS.SKIPPED;
  }

  #skipUntilKey() {
    this.stats.skipped += 1;
    if (!this.failedSince) {
      // a stream that starts without an IDR picture: nothing can be decoded until one comes
      this.failedSince = { units: 0, at: performance.now() };
    }
    this.failedSince.units += 1;
    if (this.failedSince.units > KEY_WAIT.units || performance.now() - this.failedSince.at > KEY_WAIT.ms) {
      this.lastError = `no IDR picture within ${KEY_WAIT.units} access units or ${KEY_WAIT.ms} ms after a decoder failure`;
      return STATUS.FAILED;
    }
    return STATUS.SKIPPED;
  }

  async #copyPlanes(frame) {
    const heap = this.module.HEAP32;
    const width = heap[this.base + W.WIDTH];
    const height = heap[this.base + W.HEIGHT];
    const visible = frame.visibleRect ?? { x: 0, y: 0, width: frame.codedWidth, height: frame.codedHeight };
    // Surfaces are often padded to 16 rows (1920×1088 for a 1080-row picture): the
    // rows past the picture keep what they held, and no region of the update covers them
    const rect = { x: visible.x, y: visible.y, width: evenUp(width, visible.width), height: evenUp(height, visible.height) };
    const planes = [0, 1, 2].map((i) => heap[this.base + W.PLANES + i] >>> 0);
    const strides = [0, 1, 2].map((i) => heap[this.base + W.STRIDES + i]);
    const whole = this.module.HEAPU8;
    if (frame.format === 'I420') {
      await frame.copyTo(whole, { rect, layout: planes.map((offset, i) => ({ offset, stride: strides[i] })) });
      return STATUS.PICTURE;
    }
    if (frame.format === 'NV12') {
      // hardware decoders' layout: Y as it is, interleaved UV split into U and V
      const tmp = new Uint8Array(frame.allocationSize({ rect }));
      const [luma, chroma] = await frame.copyTo(tmp, { rect });
      for (let y = 0; y < rect.height; y++) {
        const from = luma.offset + y * luma.stride;
        whole.set(tmp.subarray(from, from + rect.width), planes[0] + y * strides[0]);
      }
      for (let y = 0; y < rect.height / 2; y++) {
        const from = chroma.offset + y * chroma.stride;
        for (let x = 0; x < rect.width / 2; x++) {
          whole[planes[1] + y * strides[1] + x] = tmp[from + 2 * x];
          whole[planes[2] + y * strides[2] + x] = tmp[from + 2 * x + 1];
        }
      }
      return STATUS.PICTURE;
    }
    this.lastError = `unsupported picture format ${frame.format}`;
    return STATUS.SKIPPED;
  }

  #finish(expected, status) {
    const heap = this.module.HEAP32;
    if (Atomics.load(heap, this.base + W.TICKET) !== expected) return; // C gave up on it
    heap[this.base + W.STATUS] = status;
    const done = (expected & ~0xf) | PHASE.DONE;
    if (Atomics.compareExchange(heap, this.base + W.TICKET, expected, done) === expected) {
      Atomics.notify(heap, this.base + W.TICKET);
    }
  }

  #dropDecoder() {
    if (this.decoder && this.decoder.state !== 'closed') {
      try { this.decoder.close(); } catch { /* already closed by its error */ }
    }
    this.decoder = null;
  }
}

/** `want` rounded up to even (I420's chroma is 2×2), but never past the picture. */
function evenUp(want, limit) {
  return Math.min(want + (want & 1), limit);
}
