// The real gateway (in process) with one display whose control socket is
// connected, projecting on request through the admin API, as a presenter's
// projection would: what a test needs to run a kiosk client (the wasm client,
// the native client through the bridge) against real RDP servers.
import { setTimeout as delay } from 'node:timers/promises';

import { connectControl, type ControlSession } from './kioskTestClient.js';
import { startTestGateway, type TestGateway } from './testGateway.js';

const BUSY_DEADLINE_MS = 5000;
const BUSY_RETRY_MS = 50;

export interface ProjectionTarget {
  host: string;
  port: number;
}

export interface Projection {
  sessionId: string;
  /** The session's single-use token, for the data socket's `open`. */
  token: string;
  /** ws://…/v1/sessions/<id>/data */
  dataUrl: string;
  /** The whole `project` message the display received. */
  message: Record<string, unknown>;
}

export interface ProjectingGateway {
  readonly gateway: TestGateway;
  readonly control: ControlSession;
  readonly displayId: string;
  /** Asks the gateway (admin API) to project target onto the display; resolves with the display's `project`. */
  project(target: ProjectionTarget, extra?: Record<string, unknown>): Promise<Projection>;
  close(): Promise<void>;
}

/** A test gateway with display `displayId`, its control socket connected; certificates pinned on first use unless overridden. */
export async function startProjectingGateway(options: { displayId?: string; config?: Parameters<typeof startTestGateway>[0] } = {}): Promise<ProjectingGateway> {
  const displayId = options.displayId ?? 'test-display';
  const token = `${displayId}-token-0123456789abcdef`;
  const gateway = await startTestGateway({ displays: [{ id: displayId, token }], certificates: { mode: 'first-use' }, ...options.config });
  let control: ControlSession;
  try {
    control = await connectControl(gateway.url, displayId, token);
  } catch (error) {
    await gateway.close();
    throw error;
  }
  return {
    gateway,
    control,
    displayId,
    async project(target, extra = {}) {
      const body = JSON.stringify({ displayId, target: { host: target.host, port: target.port }, ...extra });
      // A client's close reaches the gateway after the client has seen its
      // session end (with the native data plane, through the event stream): a
      // projection asked straight after the last one ended may find the display
      // still booked for a moment. A booking that outlives the deadline is real.
      const deadline = Date.now() + BUSY_DEADLINE_MS;
      for (;;) {
        const response = await fetch(`${gateway.httpUrl}/v1/admin/sessions`, {
          method: 'POST', headers: { authorization: `Bearer ${gateway.adminToken}` }, body,
        });
        if (response.status === 202) break;
        const text = await response.text();
        if (response.status !== 409 || !text.includes('"display-busy"') || Date.now() > deadline) {
          throw new Error(`admin projection answered ${response.status}: ${text}`);
        }
        await delay(BUSY_RETRY_MS);
      }
      const message = await control.next('project');
      const sessionId = String(message.sessionId);
      return { sessionId, token: String(message.sessionToken), dataUrl: `${gateway.url}/v1/sessions/${encodeURIComponent(sessionId)}/data`, message };
    },
    async close() {
      control.close();
      await gateway.close();
    },
  };
}
