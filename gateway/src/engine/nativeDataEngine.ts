// The fast path: one Go data plane per gateway process owns the port, the
// TLS and the data sockets' bytes; this process decides for it by RPC
// (../dataplane/nativeDataChannels.ts) and serves every other request over a
// private Unix socket the data plane passes them to (docs/native-data-plane.md).
import cluster from 'node:cluster';
import type { Server } from 'node:http';
import type { SessionLedger } from '../channel/sessionLedger.js';
import { NativeDataChannels } from '../dataplane/nativeDataChannels.js';
import { DataPlaneProcess } from '../dataplane/dataPlaneProcess.js';
import { dataPlaneConfiguration } from '../dataplane/dataPlaneConfig.js';
import { listenOnPrivateSocket, type PrivateSocket } from '../dataplane/privateSocket.js';
import { siblingDirectory } from '../dataplane/siblingDirectory.js';
import type { DataEngine, DataEngineDeps } from './dataEngine.js';

export function nativeDataEngine(deps: DataEngineDeps, ledger: SessionLedger): DataEngine {
  const { config, sessions, policy, certificates, bus, metrics, logger, hosts, lookup, guesses, draining } = deps;
  const decisions = new NativeDataChannels({ config, sessions, policy, certificates, bus, metrics, logger, hosts, lookup, guesses, draining, ledger });
  const onExit = deps.onDataPlaneExit ?? ((error: Error): void => {
    logger.fatal({ err: error, event: 'dataplane-exited' }, 'the data plane exited: this gateway process ends with it');
    process.exit(1);
  });
  let dataPlane: DataPlaneProcess | undefined;
  let privateSocket: PrivateSocket | undefined;

  /** Our HTTP on a private Unix socket, the data plane on the port; resolves with the port. */
  async function listen(server: Server): Promise<number> {
    const socket = await listenOnPrivateSocket(server);
    privateSocket = socket;
    try {
      const child = new DataPlaneProcess({
        logger, binary: deps.dataPlaneBinary,
        onRequest: (op, message) => decisions.handle(op, message),
        onNotification: (op, message) => decisions.notice(op, message),
        onExit: (error) => { if (!draining()) onExit(error); },
      });
      dataPlane = child;
      decisions.attach(child.rpc);
      return await child.configure(dataPlaneConfiguration({
        config, tls: deps.tls, caPem: deps.ca, upstreamSocket: socket.path, reusePort: cluster.isWorker,
        // a presenter page and its display may reach different workers: their data planes join them (docs/native-data-plane.md, "Presenter sockets")
        peerDir: cluster.isWorker ? siblingDirectory(config.stateDir) : undefined,
      }));
    } catch (error) {
      await dataPlane?.stop();
      server.close();
      socket.remove();
      throw error;
    }
  }

  return {
    name: 'native',
    ownsPort: false,
    joinsAcrossWorkers: true,
    // the data plane serves the data and presenter sockets itself: one reaching this process is not ours
    routes: [],
    listen,
    drain: (_server, drainMs) => decisions.drain(drainMs),
    // our socket stayed open until the data plane had passed the control sockets' goodbyes on
    stop: async (server) => {
      await dataPlane?.stop();
      server.close();
      privateSocket?.remove();
    },
  };
}
