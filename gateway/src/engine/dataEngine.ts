// The seam between the gateway's decisions and the engine that carries the
// data sockets' bytes. The Node engine (nodeDataEngine.ts) is the reference:
// this process relays. The native engine (nativeDataEngine.ts) is the fast
// path: the Go data plane owns the port and relays, asking this process for
// every decision by RPC. The gateway composes one of them here and otherwise
// never asks which it has: what differs is said by the engine's properties.
import type { Server } from 'node:http';
import type { WebSocket } from 'ws';
import type { GatewayConfig } from '../config/configSchema.js';
import type { GatewayIdentity } from '../config/gatewayIdentity.js';
import type { LookupAll } from '../connect/hostResolver.js';
import type { SessionLifecycle } from '../broker/sessionLifecycle.js';
import type { TokenGuesses } from '../broker/tokenGuesses.js';
import type { HostGuard } from '../api/requestGuards.js';
import { SessionLedger } from '../channel/sessionLedger.js';
import type { SessionServices } from '../channel/sessionServices.js';
import { chooseRelayEngine, type RelayEngine } from '../dataplane/relayEngine.js';
import { dataPlaneBinary } from '../dataplane/dataPlaneProcess.js';
import { nodeDataEngine } from './nodeDataEngine.js';
import { nativeDataEngine } from './nativeDataEngine.js';

/** A websocket path this process upgrades for the engine, beside the control sockets. */
export interface SocketRoute {
  /** The path; its first group is the id `handle` gets. */
  readonly path: RegExp;
  handle(ws: WebSocket, id: string, address: string | undefined): void;
}

export interface DataEngine {
  readonly name: RelayEngine;
  /**
   * This process's HTTP server listens on the gateway's port (and holds its
   * TLS). False: the engine does, and passes every other request on to our
   * server over a private socket, naming its peer last (a local proxy).
   */
  readonly ownsPort: boolean;
  /** A presenter page and its display that reach different workers of a cluster are joined. */
  readonly joinsAcrossWorkers: boolean;
  /** The data and presenter sockets this process serves itself (none when the engine serves them). */
  readonly routes: readonly SocketRoute[];
  /** Starts carrying: resolves with the port the gateway listens on. */
  listen(server: Server): Promise<number>;
  /**
   * No new data sockets; handshakes end at once, relaying sessions may run
   * up to drainMs; resolves when every data socket has said goodbye.
   */
  drain(server: Server, drainMs: number): Promise<void>;
  /** After the control sockets' goodbyes: whatever the engine still holds goes. */
  stop(server: Server): Promise<void>;
}

export interface DataEngineDeps extends SessionServices {
  config: GatewayConfig & { stateDir: string };
  tls: GatewayIdentity['tls'];
  /** Extra CAs for the RDP servers' certificates (certificates.caFile). */
  ca: string | undefined;
  /** The broker's session lifecycle: claims, secured, samples, ended, touch (the engines need no other part). */
  sessions: SessionLifecycle;
  lookup: LookupAll | undefined;
  guesses: TokenGuesses;
  hosts: HostGuard;
  /** A socket's token was accepted: the listener's pending budget lets it go. */
  onAuthenticated: (ws: WebSocket) => void;
  /** The gateway is draining: new data sockets are refused. */
  draining: () => boolean;
  /** The data plane's binary; by default dataplane/dataPlaneProcess.ts's. */
  dataPlaneBinary?: string | undefined;
  /** The data plane exited while the gateway ran; by default the process exits 1 after logging it. */
  onDataPlaneExit?: ((error: Error) => void) | undefined;
}

/**
 * relay.engine resolved (`auto`: the native data plane where its binary is
 * built, Node's with the reason logged where not) and composed, with the one
 * session ledger the engine reports every session's life to.
 */
export function createDataEngine(deps: DataEngineDeps): DataEngine {
  const { config, logger, sessions, metrics } = deps;
  const choice = chooseRelayEngine(config.relay.engine, deps.dataPlaneBinary ?? dataPlaneBinary());
  if (choice.fallback !== undefined) logger.warn({ event: 'relay-engine-fallback', reason: choice.fallback }, 'the native data plane is not built: the data sockets relay in Node (slower); build it with gateway/dataplane/build.sh');
  const ledger = new SessionLedger({ sessions, metrics, logger });
  return choice.engine === 'native' ? nativeDataEngine(deps, ledger) : nodeDataEngine(deps, ledger);
}
