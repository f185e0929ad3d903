// Types for h264Decoders.js: WebCodecs behind the wasm client's H.264 backend.
import type { AvcSupport } from './lanternaRdp.js';

export declare const STATUS: Readonly<{ PICTURE: 1; NO_PICTURE: 0; SKIPPED: -1; UNSUPPORTED: -2; FAILED: -3 }>;
/** Is there a WebCodecs VideoDecoder here (browsers: yes; Node: no)? */
export declare function webCodecsAvailable(): boolean;
/** May AVC420/AVC444 be advertised for a desktop of this size (VideoDecoder.isConfigSupported)? */
export declare function probeAvcSupport(desktop: { width: number; height: number }): Promise<AvcSupport>;
export declare class H264Decoders {
  readonly stats: { pictures: number; decodeMs: number; skipped: number; failures: number; decoders: number };
}
