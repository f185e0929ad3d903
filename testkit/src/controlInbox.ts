// A display's control socket for tests that read the gateway's messages by
// type rather than in arrival order: a new room PIN and the `project` it let
// in may come in either order, so a strict queue (kioskTestClient's
// MessageQueue) would make such tests flaky.
import type { WebSocket } from 'ws';
import { openKioskSocket } from './kioskTestClient.js';
import { waitFor } from './waiting.js';

export type ControlMessage = Record<string, unknown>;

export interface ControlInbox {
  /** Every message received so far, in arrival order (taken or not). */
  readonly messages: readonly ControlMessage[];
  /** The oldest message of this type not taken yet; waits for one up to the deadline. */
  take(type: string, timeoutMs?: number): Promise<ControlMessage>;
  /** The newest message of this type received so far (taken or not), e.g. the room PIN shown now. */
  latest(type: string): ControlMessage | undefined;
  /** Sends a message as the display (e.g. its `laser`). */
  send(message: ControlMessage): void;
  close(): void;
}

const TAKE_TIMEOUT_MS = 5000;

/**
 * Opens `/v1/displays/<id>/control` on a gateway (`httpUrl` or its ws:// form)
 * and says hello with the display's token and, if given, its features; does
 * not wait for `welcome` (take it like any other message).
 */
export async function openControlInbox(url: string, displayId: string, token: string, options: { features?: readonly string[] } = {}): Promise<ControlInbox> {
  const socket: WebSocket = await openKioskSocket(`${url.replace(/^http/, 'ws')}/v1/displays/${encodeURIComponent(displayId)}/control`);
  const messages: ControlMessage[] = [];
  socket.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString('utf8')) as ControlMessage));
  socket.send(JSON.stringify({ type: 'hello', protocol: 1, token, ...(options.features ? { features: options.features } : {}) }));
  const taken = new Set<number>();
  const untaken = (type: string): number => messages.findIndex((message, i) => !taken.has(i) && message.type === type);
  return {
    messages,
    async take(type, timeoutMs = TAKE_TIMEOUT_MS) {
      await waitFor(`a ${type} message`, () => untaken(type) >= 0, timeoutMs).catch(() => {
        throw new Error(`no ${type} within ${timeoutMs} ms; got ${JSON.stringify(messages)}`);
      });
      const index = untaken(type);
      taken.add(index);
      return messages[index] ?? {};
    },
    latest: (type) => messages.findLast((message) => message.type === type),
    send: (message) => socket.send(JSON.stringify(message)),
    close: () => socket.close(),
  };
}
