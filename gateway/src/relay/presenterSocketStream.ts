// A presenter page's WebSocket as the relay's server leg (a Duplex, like the
// TLS socket of any other session): each binary message the page sends must
// hold whole PDUs within the PDU cap, and goes on as it came; the relay's
// pause stops reading the socket (ws pauses its TCP reads), and writes
// complete when `ws` has handed them to the socket, so `writableLength` is
// what waits for the page and the relay's backlog cap applies to it.
// Anything else the page sends (a partial PDU, an oversized one, text other
// than `close`) ends the session: `fault` then says so in the presenter's
// words, the stream fails with the display's. While the upload rate holds the
// page back, the page hears its `pace` (presenterPace.ts) once a second.
import { Duplex } from 'node:stream';
import type { RawData, WebSocket } from 'ws';
import { countWholePdus, FramingError, parsePresenterLegMessage, type FramingMode } from '@lanterna/protocol';
import { SessionError } from '../session/sessionError.js';
import { PresenterPace } from './presenterPace.js';
import { UploadRate } from './uploadRate.js';

const BINARY = { binary: true } as const;

export class PresenterSocketStream extends Duplex {
  /** Why the presenter's page is at fault, in its own terms (`bad-message`, `pdu-too-large`), when it is. */
  fault: SessionError | undefined;
  private mode: FramingMode = 'rdp';
  private finished = false;
  private readonly rate: UploadRate;
  private readonly pace = new PresenterPace(Date.now());
  /** The relay wants more (its last push was taken, or it asked since). */
  private wanted = true;
  /** Read later: the page is past its upload rate. */
  private shaping: NodeJS.Timeout | undefined;

  constructor(
    private readonly socket: WebSocket,
    private readonly maxPduBytes: number,
    bytesPerSecond: number,
  ) {
    super({ allowHalfOpen: false });
    this.rate = new UploadRate(bytesPerSecond);
    socket.on('message', this.onMessage);
    socket.once('close', this.onClose);
  }

  private readonly onMessage = (data: RawData, isBinary: boolean): void => {
    if (this.finished) return;
    const buffer = data as Buffer;
    if (!isBinary) {
      const parsed = parsePresenterLegMessage(buffer.toString('utf8'));
      if (parsed.ok && parsed.message.type === 'close') {
        this.endInput();
        return;
      }
      this.failBy(new SessionError('relay', 'bad-message', `the presenter page sent text that is not close: ${parsed.ok ? parsed.message.type : parsed.failure.message}`));
      return;
    }
    try {
      this.mode = countWholePdus(buffer, this.mode, { maxPduBytes: this.maxPduBytes }).mode;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const tooLarge = error instanceof FramingError && error.code === 'pdu-too-large';
      this.failBy(new SessionError('relay', tooLarge ? 'pdu-too-large' : 'bad-message', `the presenter page sent a message that is not whole rdp pdus: ${reason}`));
      return;
    }
    if (!this.push(buffer)) {
      this.wanted = false;
      this.socket.pause();
    }
    const wait = this.rate.take(buffer.length);
    this.pace.read(buffer.length);
    if (wait > 0 && this.shaping === undefined) {
      this.socket.pause();
      this.shaping = setTimeout(this.afterShaping, wait);
      this.pace.held(wait);
    }
    const pace = this.pace.report(Date.now());
    if (pace) this.socket.send(JSON.stringify(pace));
  };

  private readonly afterShaping = (): void => {
    this.shaping = undefined;
    if (this.wanted && !this.finished) this.socket.resume();
  };

  private readonly onClose = (): void => this.endInput();

  private endInput(): void {
    if (this.finished) return;
    this.finished = true;
    this.push(null);
  }

  /** The page broke the leg's rules: the display hears `server-error` with the presenter's reason. */
  private failBy(fault: SessionError): void {
    this.finished = true;
    this.fault = fault;
    this.destroy(new SessionError('relay', 'server-error', fault.message, { side: 'server' }));
  }

  override _read(): void {
    this.wanted = true;
    if (this.shaping === undefined) this.socket.resume();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.socket.readyState !== this.socket.OPEN) {
      callback(new Error('the presenter page has gone'));
      return;
    }
    this.socket.send(chunk, BINARY, callback);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.finished = true;
    clearTimeout(this.shaping);
    this.socket.off('message', this.onMessage);
    this.socket.off('close', this.onClose);
    // The socket stays open: the session's owner tells the page how it ended, then closes it.
    this.socket.resume();
    callback(error);
  }
}
