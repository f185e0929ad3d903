// Captured frames → pictures for the presenter's RDP server, paced like a
// projector, not a recorder: the newest frame wins (an older one not yet
// taken is closed, never queued), at most `maxInFlight` pictures wait for the
// display's acknowledgement, at most `maxFps` a second, and a key-frame
// request re-sends the last picture even when the screen stands still, and
// so does a screen that stopped moving (H.264: STILL_REFINE_MS says why).
// H.264 through WebCodecs' VideoEncoder (Annex B, one access unit per
// picture, full-range I420 as GFX AVC420 wants it) or, where that cannot run, FreeRDP's
// lossless planar codec in wasm from the frame's pixels. Frames of another
// size than the session's are scaled into it, letterboxed.

import { BitrateController } from './bitrateController.js';
import { expandI420ToFullRange, i420Layout, rgbaToFullRangeI420 } from './fullRangeI420.js';
import type { PresenterPaceMessage } from '@lanterna/protocol';
import type { ShareCodec, ShareFigures } from './shareWorkerProtocol.js';

/** The presenter's RDP server as this module uses it (wasm/js/lanternaPresenter.js, PresenterSession). */
export interface PictureSink {
  sendAvc420(unit: { width: number; height: number; accessUnit: Uint8Array }): void;
  sendFrame(frame: { width: number; height: number; pixels: Uint8Array; codec: 'planar' }): void;
}

export interface PictureSenderOptions {
  readonly width: number;
  readonly height: number;
  readonly codec: ShareCodec;
  /** Pictures sent and not yet acknowledged by the display, at most. */
  readonly maxInFlight: number;
  readonly maxFps: number;
  /** False while the socket's buffer is above its mark: nothing is encoded until it drains. */
  readonly canSend: () => boolean;
  /** The first picture the display acknowledged; figures once a second. */
  readonly onfirstack: () => void;
  readonly onfigures: (figures: ShareFigures) => void;
  readonly onfailure: (message: string) => void;
}

/** H.264 High 4.0: 1920×1080 at 30 frames/s fits its limits (NOTES.md: VideoEncoder supports it here). */
export const H264_CODEC = 'avc1.640028';

/** Bits per second for a size: about 4 bits per pixel per second (8.3 Mbit/s at 1080p), within 1–12 Mbit/s. */
export function h264Bitrate(width: number, height: number): number {
  return Math.min(12_000_000, Math.max(1_000_000, Math.round(width * height * 4)));
}

export function h264Config(width: number, height: number, maxFps: number, bitrate = h264Bitrate(width, height)): VideoEncoderConfig {
  return {
    codec: H264_CODEC,
    width,
    height,
    bitrate,
    framerate: maxFps,
    latencyMode: 'realtime',
    avc: { format: 'annexb' },
  };
}

/** A gateway's `pace` older than this is past: no news is a gateway that holds nothing back. */
const PACE_FRESH_MS = 1500;
/** An acknowledgement that does not come within this long frees its slot (a display that suspended acks, a lost frame). */
const ACK_TIMEOUT_MS = 2000;
/** An encode with no output within this long is taken as dropped by the encoder: the next picture is a key frame. */
const ENCODE_TIMEOUT_MS = 1000;
/**
 * H.264 at a bitrate for motion leaves the last picture of a movement coarse
 * (the lab's animation, held still: 33.7 dB against its tab), and a still
 * screen brings no new frame to improve it. So once no new frame came for this
 * long, the last picture is encoded again, up to STILL_REFINES times: each
 * pass over the same input codes part of what the previous one left out.
 * Nothing more is sent while the screen moves, nor after the last refinement.
 */
const STILL_REFINE_MS = 250;
const STILL_REFINES = 4;

/** One second's figures (reportFigures sends them, then starts again from none). */
interface SecondCounts {
  /** Frames captured, and pictures the display acknowledged. */
  captured: number; acked: number;
  /** Bytes sent; encodes and their summed time; summed time reading each frame before its encode. */
  bytes: number; encodes: number; encodeMsSum: number; readMsSum: number;
}

function noSecondCounts(): SecondCounts {
  return { captured: 0, acked: 0, bytes: 0, encodes: 0, encodeMsSum: 0, readMsSum: 0 };
}

export class PictureSender {
  private latest: VideoFrame | null = null;
  /** Planar: the last frame taken, kept for a key-frame request over a still screen. */
  private last: VideoFrame | null = null;
  /** H.264: the last picture encoded (full-range I420 of our own, not the capture's), for a key-frame request or a refinement. */
  private lastPicture: VideoFrame | null = null;
  private keyWanted = true;
  /** The last picture is to be encoded again (a still screen's refinement). */
  private refineWanted = false;
  private refines = 0;
  private refineTimer: ReturnType<typeof setTimeout> | null = null;
  private lastTimestamp = -Infinity;
  private inFlight = 0;
  private lastAckAt = 0;
  private encoding = false;
  private encodeStartedAt = 0;
  private sentAt = -Infinity;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;
  private firstAcked = false;
  private readonly encoder: VideoEncoder | null = null;
  /** H.264: the bitrate, following the gateway's backpressure. */
  private readonly bitrate: BitrateController | null = null;
  /** The gateway's last `pace` and when it came. */
  private pace: { readonly message: PresenterPaceMessage; readonly at: number } | null = null;
  private tickedAt = performance.now();
  private canvas: OffscreenCanvas | null = null;
  private context: OffscreenCanvasRenderingContext2D | null = null;
  private second = noSecondCounts();
  /** How the last H.264 picture was read: the capture's own I420 planes, or drawn and converted. */
  private readPath: 'i420' | 'canvas' = 'i420';
  private readonly figuresTimer: ReturnType<typeof setInterval>;

  constructor(private readonly sink: PictureSink, private readonly options: PictureSenderOptions) {
    if (options.codec === 'h264') {
      this.encoder = new VideoEncoder({
        output: (chunk) => this.onChunk(chunk),
        error: (error) => this.fail(`the H.264 encoder failed: ${error.message}`),
      });
      this.encoder.configure(h264Config(options.width, options.height, options.maxFps));
      this.bitrate = new BitrateController(h264Bitrate(options.width, options.height));
    }
    this.figuresTimer = setInterval(() => this.reportFigures(), 1000);
  }

  /** A captured frame; this sender owns it from here (closes it when it is replaced or sent). */
  offer(frame: VideoFrame): void {
    this.second.captured += 1;
    if (this.closed) {
      frame.close();
      return;
    }
    this.latest?.close();
    this.latest = frame;
    this.refines = 0;
    this.pump();
  }

  /** The display needs a whole picture (it joined, or asked for a refresh). */
  keyFrame(): void {
    this.keyWanted = true;
    this.pump();
  }

  /** The display acknowledged a picture. */
  onAck(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    this.lastAckAt = performance.now();
    this.second.acked += 1;
    if (!this.firstAcked) {
      this.firstAcked = true;
      this.options.onfirstack();
    }
    this.pump();
  }

  /** The server dropped a picture before sending it (a newer one replaced it): an H.264 chain broke there. */
  onDrop(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    if (this.options.codec === 'h264') this.keyWanted = true;
    this.pump();
  }

  /** The gateway held this page back (its `pace`): the bitrate follows at the next tick. */
  onPace(message: PresenterPaceMessage): void {
    this.pace = { message, at: performance.now() };
  }

  /** Whatever waits: call when the socket's buffer drained. */
  pump(): void {
    if (this.closed || this.timer !== null) return;
    const now = performance.now();
    if (this.encoding) {
      if (now - this.encodeStartedAt < ENCODE_TIMEOUT_MS) return;
      // realtime encoders may drop a frame under load: its output never comes
      this.encoding = false;
      this.keyWanted = true;
    }
    if (this.inFlight >= this.options.maxInFlight) {
      if (now - this.lastAckAt < ACK_TIMEOUT_MS) return this.retryIn(ACK_TIMEOUT_MS - (now - this.lastAckAt));
      this.inFlight = 0;
    }
    if (!this.options.canSend()) return this.retryIn(20);
    const h264 = this.options.codec === 'h264';
    const again = this.latest === null;
    const frame = this.latest ?? (this.keyWanted || this.refineWanted ? (h264 ? this.lastPicture : this.last) : null);
    if (frame === null) return;
    const wait = this.sentAt + 1000 / this.options.maxFps - now;
    if (wait > 0) return this.retryIn(wait);
    if (!again) {
      this.latest = null;
      if (!h264) {
        if (this.last !== frame) this.last?.close();
        this.last = frame;
      }
    }
    this.sentAt = now;
    this.refineWanted = false;
    try {
      if (h264) this.encodeH264(frame, again);
      else this.sendPlanar(frame);
    } catch (error) {
      this.fail(`a picture could not be sent: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    if (this.refineTimer !== null) clearTimeout(this.refineTimer);
    clearInterval(this.figuresTimer);
    this.latest?.close();
    this.last?.close();
    this.lastPicture?.close();
    this.latest = null;
    this.last = null;
    this.lastPicture = null;
    if (this.encoder && this.encoder.state !== 'closed') this.encoder.close();
  }

  private retryIn(ms: number): void {
    this.timer = setTimeout(() => {
      this.timer = null;
      this.pump();
    }, Math.max(1, Math.ceil(ms)));
  }

  /**
   * A new capture frame is read into a picture of our own and closed at once;
   * `again`: the last picture once more (a key frame asked for, a refinement).
   * The capture's frames are never kept: Chromium's screen capturer hands out a
   * few buffers and makes no new frame while they are held, so keeping the
   * last frame for a key-frame request held the capture to the pace of the
   * display's acknowledgements (a whole screen: 1.5–2.1 frames captured a
   * second against 16 with nothing held, on this machine).
   */
  private encodeH264(frame: VideoFrame, again: boolean): void {
    const encoder = this.encoder;
    if (!encoder || encoder.state !== 'configured') return;
    this.encoding = true;
    this.encodeStartedAt = performance.now();
    const keyFrame = this.keyWanted;
    this.keyWanted = false;
    const picture = again
      ? Promise.resolve(new VideoFrame(frame, { timestamp: this.nextTimestamp(frame.timestamp) }))
      : this.fullRangeFrame(frame).finally(() => frame.close());
    void picture.then((picture) => {
      this.second.readMsSum += performance.now() - this.encodeStartedAt;
      if (this.closed || encoder.state !== 'configured') {
        picture.close();
        return;
      }
      encoder.encode(picture, { keyFrame });
      if (again) {
        picture.close();
        return;
      }
      this.lastPicture?.close();
      this.lastPicture = picture;
    }, (error: unknown) => this.fail(`a picture could not be read: ${error instanceof Error ? error.message : String(error)}`));
  }

  /**
   * The frame as full-range BT.709 I420 at the session's size (fullRangeI420.ts
   * says why): a capture's own I420 planes expanded when it has that size,
   * else drawn (scaled, letterboxed) and converted.
   */
  private async fullRangeFrame(frame: VideoFrame): Promise<VideoFrame> {
    const { width, height } = this.options;
    const i420 = new Uint8Array((width * height * 3) / 2);
    if (frame.format === 'I420' && frame.displayWidth === width && frame.displayHeight === height && frame.visibleRect?.width === width) {
      this.readPath = 'i420';
      await frame.copyTo(i420, { layout: i420Layout(width, height) });
      if (frame.colorSpace.fullRange !== true) expandI420ToFullRange(i420, width, height);
    } else {
      this.readPath = 'canvas';
      rgbaToFullRangeI420(this.draw(frame).getImageData(0, 0, width, height).data, width, height, i420);
    }
    return new VideoFrame(i420, {
      // strictly increasing: a key-frame request or a refinement encodes the same frame again
      format: 'I420', codedWidth: width, codedHeight: height, timestamp: this.nextTimestamp(frame.timestamp),
      colorSpace: { primaries: 'bt709', transfer: 'bt709', matrix: 'bt709', fullRange: true },
    });
  }

  private onChunk(chunk: EncodedVideoChunk): void {
    if (this.closed) return;
    this.encoding = false;
    this.second.encodeMsSum += performance.now() - this.encodeStartedAt;
    this.second.encodes += 1;
    const accessUnit = new Uint8Array(chunk.byteLength);
    chunk.copyTo(accessUnit);
    this.sink.sendAvc420({ width: this.options.width, height: this.options.height, accessUnit });
    this.inFlight += 1;
    this.second.bytes += accessUnit.length;
    this.refineLater();
    this.pump();
  }

  private nextTimestamp(timestamp: number): number {
    this.lastTimestamp = Math.max(timestamp, this.lastTimestamp + 1);
    return this.lastTimestamp;
  }

  /** After each H.264 picture: if no newer frame comes within STILL_REFINE_MS, the last one again (up to STILL_REFINES). */
  private refineLater(): void {
    if (this.refineTimer !== null) clearTimeout(this.refineTimer);
    this.refineTimer = null;
    if (this.refines >= STILL_REFINES) return;
    this.refineTimer = setTimeout(() => {
      this.refineTimer = null;
      if (this.closed || this.latest !== null || this.lastPicture === null) return;
      this.refines += 1;
      this.refineWanted = true;
      this.pump();
    }, STILL_REFINE_MS);
  }

  private sendPlanar(frame: VideoFrame): void {
    const started = performance.now();
    const { width, height } = this.options;
    const context = this.draw(frame);
    const rgba = context.getImageData(0, 0, width, height).data;
    // the canvas gives R,G,B,A; FreeRDP's planar encoder reads B,G,R,X
    const pixels = new Uint8Array(rgba.buffer, rgba.byteOffset, rgba.byteLength);
    for (let i = 0; i < pixels.length; i += 4) {
      const red = pixels[i] ?? 0;
      pixels[i] = pixels[i + 2] ?? 0;
      pixels[i + 2] = red;
    }
    this.keyWanted = false;
    this.sink.sendFrame({ width, height, pixels, codec: 'planar' });
    this.inFlight += 1;
    this.second.bytes += pixels.length;
    this.second.encodeMsSum += performance.now() - started;
    this.second.encodes += 1;
  }

  /** Draws the frame onto the session-sized canvas, scaled to fit, black around it. */
  private draw(frame: VideoFrame): OffscreenCanvasRenderingContext2D {
    const { width, height } = this.options;
    if (!this.context) {
      this.canvas = new OffscreenCanvas(width, height);
      const context = this.canvas.getContext('2d', { alpha: false, willReadFrequently: true });
      if (!context) throw new Error('no 2d canvas in this worker');
      this.context = context;
    }
    const context = this.context;
    const scale = Math.min(width / frame.displayWidth, height / frame.displayHeight);
    const drawWidth = Math.round(frame.displayWidth * scale);
    const drawHeight = Math.round(frame.displayHeight * scale);
    if (drawWidth !== width || drawHeight !== height) {
      context.fillStyle = '#000';
      context.fillRect(0, 0, width, height);
    }
    context.drawImage(frame, Math.floor((width - drawWidth) / 2), Math.floor((height - drawHeight) / 2), drawWidth, drawHeight);
    return context;
  }

  /**
   * H.264, once a second: the bitrate follows the gateway's pace
   * (bitrateController.ts): what it read and how long it held the page back,
   * as its last `pace` said; no fresh `pace`, nothing was held back. Pictures
   * already handed to the encoder keep the old bitrate; WebCodecs applies a
   * configure after them, with no key frame needed.
   */
  private followBackpressure(): NonNullable<ShareFigures['bitrate']> | undefined {
    const bitrate = this.bitrate;
    const encoder = this.encoder;
    if (!bitrate || !encoder) return undefined;
    const now = performance.now();
    const pace = this.pace !== null && now - this.pace.at <= PACE_FRESH_MS ? this.pace.message : null;
    this.pace = null;
    const tick = pace
      ? { bytesSent: Math.round((pace.bytesPerSecond * pace.ofMs) / 1000), heldMs: pace.heldMs, ms: pace.ofMs }
      : { bytesSent: this.second.bytes, heldMs: 0, ms: now - this.tickedAt };
    this.tickedAt = now;
    const decision = bitrate.tick(tick);
    if (decision.changed && encoder.state === 'configured') {
      encoder.configure(h264Config(this.options.width, this.options.height, this.options.maxFps, decision.bitrate));
    }
    return { target: decision.bitrate, ceiling: bitrate.ceiling, heldMs: tick.heldMs };
  }

  private reportFigures(): void {
    const mean = (sum: number): number => (this.second.encodes === 0 ? 0 : Math.round((sum / this.second.encodes) * 10) / 10);
    const bitrate = this.followBackpressure();
    this.options.onfigures({
      capturedPerSecond: this.second.captured, picturesPerSecond: this.second.acked, bytesPerSecond: this.second.bytes, encodeMs: mean(this.second.encodeMsSum), readMs: mean(this.second.readMsSum), readPath: this.readPath,
      ...(bitrate ? { bitrate } : {}),
    });
    this.second = noSecondCounts();
  }

  private fail(message: string): void {
    if (this.closed) return;
    this.close();
    this.options.onfailure(message);
  }
}
