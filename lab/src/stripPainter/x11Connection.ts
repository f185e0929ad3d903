// Just enough of the X11 core protocol (X Window System Protocol, X11R7) to
// paint rectangles in a window of our own: connection setup without
// authorisation (the lab's Xvfb has none), then requests encoded by hand.
// A native X library would need a compiler or a Python with Tk on the
// machine; this speaks the wire over the display's Unix socket.
import { connect, type Socket } from 'node:net';

export interface X11Screen {
  readonly root: number;
  readonly rootDepth: number;
  readonly width: number;
  readonly height: number;
  readonly whitePixel: number;
  readonly blackPixel: number;
}

export interface Rectangle {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** A failure of the X connection; `phase` says where (connect, setup, request). */
export class X11Error extends Error {
  constructor(message: string, readonly phase: 'connect' | 'setup' | 'request') {
    super(message);
    this.name = 'X11Error';
  }
}

const OPCODE = {
  createWindow: 1,
  mapWindow: 8,
  configureWindow: 12,
  getInputFocus: 43,
  createPixmap: 53,
  createGc: 55,
  changeGc: 56,
  copyArea: 62,
  polyFillRectangle: 70,
} as const;

/** ':N' or ':N.S' → the Unix socket Xvfb listens on (it runs with -nolisten tcp). */
export function x11SocketPath(display: string): string {
  const match = /^:(\d+)(?:\.\d+)?$/.exec(display);
  if (!match) throw new X11Error(`display ${display} is not a local display (:N)`, 'connect');
  return `/tmp/.X11-unix/X${match[1]}`;
}

/** The setup request: little-endian, protocol 11.0, no authorisation. */
export function encodeSetupRequest(): Buffer {
  const request = Buffer.alloc(12);
  request.write('l', 0, 'latin1');
  request.writeUInt16LE(11, 2);
  request.writeUInt16LE(0, 4);
  return request;
}

export interface SetupReply {
  readonly resourceIdBase: number;
  readonly resourceIdMask: number;
  readonly screen: X11Screen;
}

/** Parses a whole setup reply (X11 protocol, "Connection Setup"); the first screen only. */
export function parseSetupReply(reply: Buffer): SetupReply {
  const status = reply.readUInt8(0);
  if (status !== 1) {
    const reasonLength = reply.readUInt8(1);
    const reason = reply.subarray(8, 8 + reasonLength).toString('latin1');
    throw new X11Error(`x server refused the connection: ${reason || `status ${status}`}`, 'setup');
  }
  const vendorLength = reply.readUInt16LE(24);
  const formats = reply.readUInt8(29);
  const screenAt = 40 + Math.ceil(vendorLength / 4) * 4 + formats * 8;
  return {
    resourceIdBase: reply.readUInt32LE(12),
    resourceIdMask: reply.readUInt32LE(16),
    screen: {
      root: reply.readUInt32LE(screenAt),
      whitePixel: reply.readUInt32LE(screenAt + 8),
      blackPixel: reply.readUInt32LE(screenAt + 12),
      width: reply.readUInt16LE(screenAt + 20),
      height: reply.readUInt16LE(screenAt + 22),
      rootDepth: reply.readUInt8(screenAt + 38),
    },
  };
}

function request(opcode: number, data: number, body: Buffer): Buffer {
  const header = Buffer.alloc(4);
  header.writeUInt8(opcode, 0);
  header.writeUInt8(data, 1);
  header.writeUInt16LE(1 + body.length / 4, 2);
  return Buffer.concat([header, body]);
}

function words(...values: number[]): Buffer {
  const body = Buffer.alloc(values.length * 4);
  values.forEach((value, index) => body.writeUInt32LE(value >>> 0, index * 4));
  return body;
}

function rectangles(rects: readonly Rectangle[]): Buffer {
  const body = Buffer.alloc(rects.length * 8);
  rects.forEach((rect, index) => {
    body.writeInt16LE(rect.x, index * 8);
    body.writeInt16LE(rect.y, index * 8 + 2);
    body.writeUInt16LE(rect.width, index * 8 + 4);
    body.writeUInt16LE(rect.height, index * 8 + 6);
  });
  return body;
}

function xywh(x: number, y: number, width: number, height: number): Buffer {
  return rectangles([{ x, y, width, height }]);
}

/** One client connection. Requests are queued with `send`; `sync()` waits until the server has done them all. */
export class X11Connection {
  private nextId = 1;
  private received: Buffer = Buffer.alloc(0);
  private readonly waiters: ((error?: Error) => void)[] = [];
  private failure: Error | undefined;

  private constructor(private readonly socket: Socket, readonly setup: SetupReply) {
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (error) => this.fail(new X11Error(`x connection failed: ${error.message}`, 'request')));
    socket.on('close', () => this.fail(new X11Error('x server closed the connection', 'request')));
  }

  static open(display: string, timeoutMs = 5000): Promise<X11Connection> {
    const path = x11SocketPath(display);
    return new Promise((resolve, reject) => {
      const socket = connect(path);
      let buffered = Buffer.alloc(0);
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new X11Error(`no setup reply from ${display} within ${timeoutMs} ms`, 'setup'));
      }, timeoutMs);
      const onData = (chunk: Buffer): void => {
        buffered = Buffer.concat([buffered, chunk]);
        if (buffered.length < 8) return;
        const total = 8 + buffered.readUInt16LE(6) * 4;
        if (buffered.length < total) return;
        clearTimeout(timer);
        socket.off('data', onData);
        socket.off('error', onError);
        try {
          const connection = new X11Connection(socket, parseSetupReply(buffered.subarray(0, total)));
          resolve(connection);
        } catch (error) {
          socket.destroy();
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      };
      const onError = (error: Error): void => {
        clearTimeout(timer);
        reject(new X11Error(`cannot connect to ${display} (${path}): ${error.message}`, 'connect'));
      };
      socket.on('data', onData);
      socket.once('error', onError);
      socket.once('connect', () => socket.write(encodeSetupRequest()));
    });
  }

  get screen(): X11Screen {
    return this.setup.screen;
  }

  allocateId(): number {
    const id = this.setup.resourceIdBase | (this.nextId & this.setup.resourceIdMask);
    this.nextId += 1;
    return id;
  }

  /** An InputOutput child of the root; override-redirect keeps window managers away from it. */
  createWindow(rect: Rectangle, options: { backgroundPixel: number; overrideRedirect: boolean }): number {
    const id = this.allocateId();
    const BACKGROUND_PIXEL = 0x2;
    const OVERRIDE_REDIRECT = 0x200;
    this.send(request(OPCODE.createWindow, 0, Buffer.concat([
      words(id, this.screen.root),
      xywh(rect.x, rect.y, rect.width, rect.height),
      Buffer.from([0, 0, 1, 0]), // border width 0, class InputOutput
      words(0, BACKGROUND_PIXEL | OVERRIDE_REDIRECT, options.backgroundPixel, options.overrideRedirect ? 1 : 0),
    ])));
    return id;
  }

  mapWindow(window: number): void {
    this.send(request(OPCODE.mapWindow, 0, words(window)));
  }

  /** Stack-mode Above: on top of every sibling (kiosk and full-screen windows included). */
  raiseWindow(window: number): void {
    const STACK_MODE = 0x40;
    const body = Buffer.alloc(12);
    body.writeUInt32LE(window, 0);
    body.writeUInt16LE(STACK_MODE, 4);
    body.writeUInt32LE(0, 8);
    this.send(request(OPCODE.configureWindow, 0, body));
  }

  createPixmap(drawable: number, width: number, height: number): number {
    const id = this.allocateId();
    this.send(request(OPCODE.createPixmap, this.screen.rootDepth, Buffer.concat([words(id, drawable), xywh(width, height, 0, 0).subarray(0, 4)])));
    return id;
  }

  /** A graphics context with a foreground and no GraphicsExpose/NoExpose events (CopyArea would send one each). */
  createGc(drawable: number, foreground: number): number {
    const id = this.allocateId();
    const FOREGROUND = 0x4;
    const GRAPHICS_EXPOSURES = 0x10000;
    this.send(request(OPCODE.createGc, 0, words(id, drawable, FOREGROUND | GRAPHICS_EXPOSURES, foreground, 0)));
    return id;
  }

  setForeground(gc: number, pixel: number): void {
    this.send(request(OPCODE.changeGc, 0, words(gc, 0x4, pixel)));
  }

  fillRectangles(drawable: number, gc: number, rects: readonly Rectangle[]): void {
    if (rects.length === 0) return;
    this.send(request(OPCODE.polyFillRectangle, 0, Buffer.concat([words(drawable, gc), rectangles(rects)])));
  }

  copyArea(source: number, destination: number, gc: number, rect: Rectangle): void {
    this.send(request(OPCODE.copyArea, 0, Buffer.concat([words(source, destination, gc), xywh(rect.x, rect.y, rect.x, rect.y), xywh(rect.width, rect.height, 0, 0).subarray(0, 4)])));
  }

  /** Resolves once the server has processed every request sent so far (a GetInputFocus round trip, as XSync does). */
  sync(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.waiters.push((error) => (error ? reject(error) : resolve()));
      this.send(request(OPCODE.getInputFocus, 0, Buffer.alloc(0)));
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private send(bytes: Buffer): void {
    if (!this.failure) this.socket.write(bytes);
  }

  private onData(chunk: Buffer): void {
    this.received = this.received.length === 0 ? chunk : Buffer.concat([this.received, chunk]);
    // every reply, event and error is 32 bytes plus, for replies, 4 × its length field
    while (this.received.length >= 32) {
      const kind = this.received.readUInt8(0);
      const length = kind === 1 ? 32 + this.received.readUInt32LE(4) * 4 : 32;
      if (this.received.length < length) return;
      const message = this.received.subarray(0, length);
      this.received = this.received.subarray(length);
      if (kind === 0) {
        this.fail(new X11Error(`x error ${message.readUInt8(1)} for request ${message.readUInt8(10)} (value ${message.readUInt32LE(4)})`, 'request'));
        return;
      }
      if (kind === 1) this.waiters.shift()?.();
      // events (kind ≥ 2) are not asked for except Expose-free ones; ignored
    }
  }

  private fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    for (const waiter of this.waiters.splice(0)) waiter(error);
    this.socket.destroy();
  }
}
