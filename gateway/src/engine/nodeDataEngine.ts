// The reference engine: this process serves the data sockets and presenter
// pages' sockets on its own HTTP server and relays their bytes
// (../channel/dataChannel.ts, ../channel/presenterChannel.ts).
import type { Server } from 'node:http';
import type { SessionLedger } from '../channel/sessionLedger.js';
import { DataChannels } from '../channel/dataChannel.js';
import { PresenterChannels } from '../channel/presenterChannel.js';
import { PresenterLegs } from '../channel/presenterLegs.js';
import type { DataEngine, DataEngineDeps } from './dataEngine.js';

export function nodeDataEngine(deps: DataEngineDeps, ledger: SessionLedger): DataEngine {
  const { config, sessions, policy, certificates, ca, bus, metrics, logger, lookup, guesses, onAuthenticated } = deps;
  const presenterLegs = new PresenterLegs();
  const data = new DataChannels({ config, sessions, policy, certificates, ca, bus, metrics, logger, lookup, onAuthenticated, presenterLegs, ledger });
  const presenters = new PresenterChannels({ config, sessions, legs: presenterLegs, bus, metrics, logger, guesses, onAuthenticated });
  return {
    name: 'node',
    ownsPort: true,
    // a worker's presenter legs are its own: the page and its display must reach the same worker
    joinsAcrossWorkers: false,
    routes: [
      { path: /^\/v1\/sessions\/([A-Za-z0-9_-]{1,64})\/data$/, handle: (ws, id) => void data.handle(ws, id) },
      { path: /^\/v1\/sessions\/([A-Za-z0-9_-]{1,64})\/present$/, handle: (ws, id, address) => void presenters.handle(ws, id, address) },
    ],
    listen: (server) => new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.listen.port, config.listen.host, () => {
        server.off('error', reject);
        const address = server.address();
        resolve(typeof address === 'object' && address ? address.port : config.listen.port);
      });
    }),
    drain: async (server: Server, drainMs) => {
      server.close();
      await data.drain(drainMs);
    },
    stop: () => Promise.resolve(),
  };
}
