// Messages between the coordinator and a fleet process (Node IPC): a process
// that keeps many page-like displays up for a chaos or soak run.
import type { DisplayIdentity } from './displayRoster.js';
import type { TrafficShape } from './trafficShapes.js';
import type { DisplayEndpoints, DisplayWindow } from './pageLikeDisplay.js';

export interface FleetDisplay extends DisplayIdentity {
  /** Position in the roster: picks the source address behind a balancer. */
  index: number;
  shape: TrafficShape;
}

export type CoordinatorToFleet =
  | { type: 'configure'; baseUrl: string; distinctSourceAddresses: boolean; timeoutMs: number }
  /** Starts the displays, spread evenly over `spreadMs` (a building's screens do not all boot in one instant). */
  | { type: 'start'; displays: FleetDisplay[]; spreadMs: number }
  | { type: 'status' }
  | { type: 'endpoints' }
  | { type: 'begin-window' }
  | { type: 'end-window'; perDisplay: boolean }
  /** These displays' pages go away and come back after about `pauseMs` (churn). */
  | { type: 'churn'; ids: string[]; pauseMs: number }
  | { type: 'close-all' };

export interface FleetStatus { type: 'status'; displays: number; relaying: number; stoppedForGood: number }

export interface FleetWindow {
  type: 'window';
  /** Per traffic shape, the window's round trips (encoded HDR histogram). */
  histograms: Record<string, string>;
  sent: number;
  received: number;
  /** Sessions that broke while relaying. */
  failures: number;
  lastFailure: string | undefined;
  /** Every unexpected loss the displays noted (control sockets, sessions, failed opens). */
  losses: number;
  lastLoss: string | undefined;
  /** Displays relaying at the end of the window, of those the fleet keeps. */
  relaying: number;
  displays: number;
  /** Churn: pages closed and opened again in the window. */
  churned: number;
  perDisplay: DisplayWindow[] | undefined;
  cpuCores: number;
  loopDelayP99Ms: number;
  /** The longest the fleet's event loop was held up: a stall its displays report may be the fleet's own. */
  loopDelayMaxMs: number;
  wallSeconds: number;
}

export type FleetToCoordinator =
  | { type: 'ready' }
  | { type: 'started'; count: number }
  | FleetStatus
  | { type: 'endpoints'; endpoints: DisplayEndpoints[] }
  | FleetWindow
  | { type: 'churned'; count: number }
  | { type: 'closed' };
