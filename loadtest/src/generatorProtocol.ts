// Messages between the coordinator and a generator process (Node IPC).
import type { TrafficPattern } from './trafficPattern.js';
import type { DisplayIdentity } from './displayRoster.js';

/**
 * For wss:// (`--kiosk-tls`): the relay's self-signed certificate, the only
 * certificate authority the generators trust for it, so they verify the
 * relay as a kiosk would a pinned gateway instead of accepting anything.
 */
export interface KioskTrust { caPem?: string | undefined }

export type RelayTarget =
  | ({ kind: 'lanterna'; baseUrl: string; distinctSourceAddresses: boolean } & KioskTrust)
  | { kind: 'websockify'; url: string; distinctSourceAddresses: boolean }
  /** The minimal WebSocket → TLS pipe (pipeRelay.ts, or its Go twin for pipe-go): the websockify client's wire. */
  | ({ kind: 'pipe' | 'pipe-go'; url: string; distinctSourceAddresses: boolean } & KioskTrust)
  | { kind: 'direct'; host: string; port: number; distinctSourceAddresses: boolean };

export interface DisplayAssignment extends DisplayIdentity { index: number }

export type CoordinatorMessage =
  | { type: 'configure'; target: RelayTarget; pattern: TrafficPattern; connectConcurrency: number; connectTimeoutMs: number }
  | { type: 'open'; displays: DisplayAssignment[] }
  | { type: 'begin-window' }
  | { type: 'end-window' }
  | { type: 'close-all' };

export interface WindowReport {
  type: 'window';
  histogram: string;
  sent: number;
  received: number;
  failures: number;
  lastFailure: string | undefined;
  /** Connections alive at the end of the window. */
  alive: number;
  /** Requests still unanswered and older than one interval at the end of the window. */
  lateOutstanding: number;
  cpuCores: number;
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
  wallSeconds: number;
}

export type GeneratorMessage =
  | { type: 'ready' }
  | { type: 'opened'; opened: number; failed: number; firstError: string | undefined }
  /** Sent every second while opening: a slow open that progresses is not a stuck one. */
  | { type: 'open-progress'; opened: number; failed: number }
  | WindowReport
  | { type: 'closed' };
