import type { Frame, LanternaRdp, PixelLayout, SessionEnd, SessionOptions } from '../js/lanternaRdp.js';

export interface ReplayResult {
  /** Frames (EndPaints) the client delivered. */
  frames: number;
  /** PDUs the client sent (the Connection Request included); counted, not checked. */
  clientPdus: number;
  /** Server→client PDUs fed from the recording. */
  serverPdus: number;
  /** A copy of the last frame's surface (unless keepLastFrame was false). */
  lastFrame: { width: number; height: number; stride: number; layout: PixelLayout; pixels: Uint8Array } | null;
  desktop: { width: number; height: number } | null;
  /** How the session ended: after the last recorded PDU the input ends. */
  end: SessionEnd | null;
  /** Wall time from start to the end, ms. */
  ms: number;
}

/** Plays a recording's server→client PDUs into a new session of rdp; resolves when the session ends. */
export declare function replayRecording(
  rdp: LanternaRdp,
  records: readonly { readonly direction: string; readonly data: Uint8Array }[],
  options?: { session?: SessionOptions; keepLastFrame?: boolean; onframe?: (frame: Frame) => void; deadlineMs?: number },
): Promise<ReplayResult>;

/** X.224 Connection Confirm (TPKT) with an RDP_NEG_RSP selecting TLS: the replay's answer to the Connection Request. */
export declare function tlsConnectionConfirm(): Uint8Array;

/** FreeRDP settings a replaying client needs (the recorded client's static channel list). */
export declare const recordedClientSettings: Readonly<Record<string, boolean>>;
