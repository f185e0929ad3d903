// A kiosk that behaves like a display after a crash of its gateway: when its
// control socket goes, it connects again at once (and keeps trying); each
// `project` it gets opens the session's data socket and sends the Connection
// Request, like the display page does. Tests read what it went through.
import { buildConnectionRequest, PROTOCOL } from '@lanterna/protocol';
import { connectControl, openData, type MessageQueue, type ControlSession } from './kioskTestClient.js';
import type { WebSocket } from 'ws';
import { waitFor } from './waiting.js';

export interface KioskSession {
  sessionId: string;
  /** The slot its `project` named (displays that announced `slots`). */
  slot?: number | undefined;
  /** performance.now() when `secured` arrived; undefined until then. */
  securedAt?: number | undefined;
  /** The error message if the session was refused. */
  error?: Record<string, unknown> | undefined;
  socket: WebSocket;
  queue: MessageQueue;
}

export interface ReconnectingKiosk {
  readonly sessions: KioskSession[];
  /** Control sockets opened so far (1 + reconnects). */
  readonly connections: number;
  /** Resolves with the kiosk's session number `index` (0 is the first) once it is secured. */
  securedSession(index: number, timeoutMs?: number): Promise<KioskSession>;
  close(): void;
}

/** `features`: what its hello announces (e.g. `slots`, to be given several sessions at once). */
export function startReconnectingKiosk(baseUrl: string, displayId: string, token: string, options: { features?: readonly string[] } = {}): ReconnectingKiosk {
  const sessions: KioskSession[] = [];
  let connections = 0;
  const state = { closed: false };
  let control: (ControlSession & { queue: MessageQueue }) | undefined;

  const runSession = async (project: Record<string, unknown>): Promise<void> => {
    const data = await openData(baseUrl, String(project.sessionId), String(project.sessionToken));
    const session: KioskSession = {
      sessionId: String(project.sessionId), socket: data.socket, queue: data.queue,
      ...(typeof project.slot === 'number' ? { slot: project.slot } : {}),
    };
    sessions.push(session);
    data.socket.send(buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL }));
    const first = await data.queue.next(15_000);
    if ('text' in first && first.text.type === 'secured') session.securedAt = performance.now();
    else if ('text' in first) session.error = first.text;
  };

  const loop = async (): Promise<void> => {
    while (!state.closed) {
      try {
        control = await connectControl(baseUrl, displayId, token, undefined, options.features ? { features: options.features } : {});
        connections += 1;
        for (;;) {
          const item = await control.queue.next(3_600_000);
          if ('closed' in item) break;
          if ('text' in item && item.text.type === 'project') void runSession(item.text).catch(() => undefined);
        }
      } catch {
        // the gateway is not there (yet): try again shortly
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  void loop();
  return {
    sessions,
    get connections() { return connections; },
    async securedSession(index, timeoutMs = 20_000) {
      await waitFor(`kiosk session #${index + 1} secured`, () => sessions[index]?.securedAt !== undefined, timeoutMs);
      const session = sessions[index];
      if (!session) throw new Error('unreachable');
      return session;
    },
    close() {
      state.closed = true;
      control?.close();
      for (const session of sessions) session.socket.close();
    },
  };
}
