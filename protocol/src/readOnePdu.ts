// Reads exactly one PDU from a byte stream during a handshake (a server's
// X.224 Connection Confirm, a client's Connection Request): capped in size,
// ended by an abort signal, and strict about what follows it. The stream is
// any source of chunks behind a small interface, so a Node socket, a TLS
// socket or a WebSocket's messages all fit through a thin adapter; the
// deadline is the caller's (an AbortSignal.timeout, say), as the package
// keeps no timers.
import { concatLike } from './byteViews.js';
import { FramingError } from './framingError.js';
import { TPKT_VERSION, type FramingMode } from './framingMode.js';
import { readPduHeader } from './pduHeader.js';

/** Chunks of a stream, one at a time. */
export interface ByteSource<Bytes extends Uint8Array = Uint8Array> {
  /** Resolves with the next chunk, or null once the stream has ended; rejects with the stream's error. */
  read(): Promise<Bytes | null>;
}

/** What both the DOM's and Node's AbortSignal offer (the package names no platform type). */
export interface AbortSignalLike {
  readonly aborted: boolean;
  readonly reason?: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

export interface ReadOnePduOptions {
  /** The largest PDU accepted, header included. */
  readonly maxBytes: number;
  readonly signal?: AbortSignalLike;
  /**
   * Which PDUs count: `tpkt` (the default, the X.224 handshake), or every
   * kind a framing mode allows.
   */
  readonly accept?: 'tpkt' | FramingMode;
  /**
   * What bytes after the PDU mean: `refuse` (the default) fails, as a peer
   * must stay silent until the client answers; `return` hands them back.
   */
  readonly trailing?: 'refuse' | 'return';
}

export interface OnePdu<Bytes extends Uint8Array = Uint8Array> {
  readonly pdu: Bytes;
  /** What arrived after the PDU (empty when `trailing` is `refuse`). */
  readonly rest: Bytes;
}

export type PduReadErrorKind = 'invalid' | 'too-large' | 'trailing' | 'closed' | 'aborted';

export class PduReadError extends Error {
  constructor(
    readonly kind: PduReadErrorKind,
    message: string,
    /** For `aborted`, the signal's reason; for `closed`, the stream's error, if any. */
    override readonly cause?: unknown,
  ) {
    super(message);
    this.name = 'PduReadError';
  }
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** The announced length once the header is in, undefined before; throws PduReadError. */
function announcedLength(received: Uint8Array, options: ReadOnePduOptions): number | undefined {
  const accept = options.accept ?? 'tpkt';
  if (accept === 'tpkt' && received.length > 0 && received[0] !== TPKT_VERSION) {
    throw new PduReadError('invalid', `reply does not start with a tpkt header (first bytes ${hex(received.subarray(0, 4))})`);
  }
  try {
    // The cap is checked below, with its own error kind; here only the format.
    return readPduHeader(received, 0, received.length, accept === 'tpkt' ? 'rdp' : accept, Number.MAX_SAFE_INTEGER, 0)?.length;
  } catch (error) {
    if (!(error instanceof FramingError)) throw error;
    throw new PduReadError('invalid', `reply is not a pdu: ${error.message}`);
  }
}

function streamFailed(error: unknown): PduReadError {
  return error instanceof PduReadError ? error : new PduReadError('closed', error instanceof Error ? error.message : String(error), error);
}

/** Resolves with the next chunk or null, or rejects once the signal aborts. */
function readOrAbort<Bytes extends Uint8Array>(source: ByteSource<Bytes>, signal: AbortSignalLike | undefined): Promise<Bytes | null> {
  if (signal === undefined) return source.read().catch((error: unknown) => { throw streamFailed(error); });
  return new Promise((resolve, reject) => {
    const onAbort = (): void => reject(new PduReadError('aborted', 'the read was aborted', signal.reason));
    signal.addEventListener('abort', onAbort, { once: true });
    source.read().then(
      (chunk) => {
        signal.removeEventListener('abort', onAbort);
        resolve(chunk);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(streamFailed(error));
      },
    );
  });
}

/**
 * Reads chunks until one whole PDU has arrived. Rejects with PduReadError:
 * `invalid` (not a PDU of the accepted kinds), `too-large` (it announces
 * more than maxBytes), `trailing` (bytes after it, when refused), `closed`
 * (the stream ended or failed first), `aborted` (the signal fired; the
 * error's cause is the signal's reason).
 */
export async function readOnePdu<Bytes extends Uint8Array>(source: ByteSource<Bytes>, options: ReadOnePduOptions): Promise<OnePdu<Bytes>> {
  const { signal } = options;
  let received: Bytes | undefined;
  for (;;) {
    if (signal?.aborted) throw new PduReadError('aborted', 'the read was aborted', signal.reason);
    const chunk = await readOrAbort(source, signal);
    if (chunk === null) {
      throw new PduReadError('closed', received === undefined ? 'the stream ended before any reply' : `the stream ended ${received.length} bytes into the reply`);
    }
    // Handshake PDUs are a few hundred bytes at most: joining chunks is cheap, and bounded by the cap.
    received = received === undefined ? chunk : concatLike<Bytes>([received, chunk], received.length + chunk.length);
    const length = announcedLength(received, options);
    if (length === undefined) continue;
    if (length > options.maxBytes) throw new PduReadError('too-large', `reply announces ${length} bytes, more than the ${options.maxBytes} allowed`);
    if (received.length < length) continue;
    const rest = received.subarray(length) as Bytes;
    if (rest.length > 0 && (options.trailing ?? 'refuse') === 'refuse') {
      throw new PduReadError('trailing', `peer sent ${rest.length} bytes after its ${length}-byte reply`);
    }
    return { pdu: received.subarray(0, length) as Bytes, rest };
  }
}
