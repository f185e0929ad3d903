import { WebSocket } from 'ws';
import { buildConnectionRequest, PROTOCOL } from '@lanterna/protocol';

export interface ControlSession {
  socket: WebSocket;
  welcome: Record<string, unknown>;
  /** Resolves with the next `project` (or any other) control message. */
  next(type?: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  close(): void;
}

const TEST_TIMEOUT_MS = 10_000;

/** Opens a kiosk-protocol socket (subprotocol lanterna.v1, no compression); rejects on an error or a refused upgrade. */
export function openKioskSocket(url: string, ca?: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, 'lanterna.v1', { ca, perMessageDeflate: false });
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
    socket.once('unexpected-response', (_request, response) => reject(new Error(`upgrade refused: ${response.statusCode ?? 0}`)));
  });
}

/** Queue of a socket's messages with typed waits, for tests that speak the kiosk protocol by hand. */
export class MessageQueue {
  private readonly items: ({ text: Record<string, unknown> } | { binary: Buffer } | { closed: { code: number; reason: string } })[] = [];
  private wake: (() => void) | undefined;

  constructor(socket: WebSocket) {
    socket.on('message', (data, isBinary) => {
      this.items.push(isBinary ? { binary: data as Buffer } : { text: JSON.parse((data as Buffer).toString('utf8')) as Record<string, unknown> });
      this.wake?.();
    });
    socket.on('close', (code, reason) => {
      this.items.push({ closed: { code, reason: reason.toString() } });
      this.wake?.();
    });
  }

  async next(timeoutMs = TEST_TIMEOUT_MS): Promise<{ text: Record<string, unknown> } | { binary: Buffer } | { closed: { code: number; reason: string } }> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const item = this.items.shift();
      if (item) return item;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no message within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => { clearTimeout(timer); this.wake = undefined; resolve(); };
      });
    }
  }

  async nextText(type?: string, timeoutMs = TEST_TIMEOUT_MS): Promise<Record<string, unknown>> {
    const item = await this.next(timeoutMs);
    if (!('text' in item)) throw new Error(`expected a text message${type ? ` of type ${type}` : ''}, got ${'binary' in item ? 'binary' : `close ${item.closed.code} ${item.closed.reason}`}`);
    if (type && item.text.type !== type) throw new Error(`expected ${type}, got ${JSON.stringify(item.text)}`);
    return item.text;
  }

  async nextBinary(timeoutMs = TEST_TIMEOUT_MS): Promise<Buffer> {
    const item = await this.next(timeoutMs);
    if (!('binary' in item)) throw new Error(`expected binary, got ${JSON.stringify('text' in item ? item.text : item.closed)}`);
    return item.binary;
  }

  /** Skips messages until the socket closes; returns the close code and the last error message seen. */
  async closed(timeoutMs = TEST_TIMEOUT_MS): Promise<{ code: number; error?: Record<string, unknown> | undefined }> {
    let error: Record<string, unknown> | undefined;
    for (;;) {
      const item = await this.next(timeoutMs);
      if ('text' in item && item.text.type === 'error') error = item.text;
      if ('closed' in item) return { code: item.closed.code, error };
    }
  }
}

/** Opens a display's control socket and says hello. */
export async function connectControl(base: string, displayId: string, token: string, ca?: string, options: { features?: readonly string[] } = {}): Promise<ControlSession & { queue: MessageQueue }> {
  const socket = await openKioskSocket(`${base}/v1/displays/${displayId}/control`, ca);
  const queue = new MessageQueue(socket);
  socket.send(JSON.stringify({ type: 'hello', protocol: 1, token, client: 'lanterna-test/1', ...(options.features ? { features: options.features } : {}) }));
  const welcome = await queue.nextText('welcome');
  return {
    socket, welcome, queue,
    next: (type, timeoutMs) => queue.nextText(type, timeoutMs),
    close: () => socket.close(),
  };
}

/** Opens a session's data socket and sends `open`; the caller sends the Connection Request. */
export async function openData(base: string, sessionId: string, sessionToken: string, ca?: string): Promise<{ socket: WebSocket; queue: MessageQueue }> {
  const socket = await openKioskSocket(`${base}/v1/sessions/${sessionId}/data`, ca);
  const queue = new MessageQueue(socket);
  socket.send(JSON.stringify({ type: 'open', token: sessionToken }));
  return { socket, queue };
}

/**
 * The data socket of a `project` message, opened and secured: an SSL
 * Connection Request sent and the gateway's `secured` read (what most session
 * tests do before their own part). The Connection Confirm is the queue's next
 * binary message. A socket that does not get there is closed.
 */
export async function openSecuredData(base: string, project: Record<string, unknown>, ca?: string): Promise<{ socket: WebSocket; queue: MessageQueue; secured: Record<string, unknown> }> {
  const data = await openData(base, String(project.sessionId), String(project.sessionToken), ca);
  try {
    data.socket.send(buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL }));
    return { ...data, secured: await data.queue.nextText('secured') };
  } catch (error) {
    data.socket.close();
    throw error;
  }
}
