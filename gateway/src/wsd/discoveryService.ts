// WS-Discovery for one gateway, put together: the InstanceId persisted in the
// state directory and the UDP responder, which reads presence from the broker
// store; wrap that store with withPresenceFeed(store, () => responder.refresh())
// so every change reaches it. The cluster primary (or the single process)
// calls this once; workers serve the HTTP side only.
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config/configSchema.js';
import type { BrokerStore } from '../broker/brokerStore.js';
import type { WsdUdpMetrics } from '../metrics/gatewayMetrics.js';
import { displayEndpoint, startWsdInstance } from './wsdIdentity.js';
import { WsdResponder } from './wsdResponder.js';

export interface DiscoveryOptions {
  readonly config: GatewayConfig & { stateDir: string };
  readonly store: BrokerStore;
  readonly logger: Logger;
  readonly metrics: WsdUdpMetrics;
  /** The listener's real port (config.listen.port may be 0 in tests). */
  readonly listenPort?: number | undefined;
  readonly udpPort?: number | undefined;
}

export async function startDiscovery(options: DiscoveryOptions): Promise<WsdResponder> {
  const { config, store, logger, metrics } = options;
  const identity = startWsdInstance(config.stateDir);
  const responder = await WsdResponder.start({
    ...config.wsd,
    instanceId: identity.instanceId,
    listen: { port: options.listenPort ?? config.listen.port, tls: config.listen.tls },
    // The store's displays (config seeds and those made through the admin API), not the config file's.
    online: async () => {
      const [displays, presence] = await Promise.all([store.listDisplays(), store.listPresence()]);
      const known = new Set(displays.map((display) => display.id));
      return presence
        .filter((entry) => known.has(entry.displayId))
        .map((entry) => ({ id: entry.displayId, endpoint: displayEndpoint(identity.deviceSeed, entry.displayId) }));
    },
    logger: logger.child({ component: 'wsd' }),
    metrics,
    port: options.udpPort,
  });
  // Displays online before a restart of the primary are still in a shared store: announce them.
  await responder.refresh();
  return responder;
}
