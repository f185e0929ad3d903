// WS-Discovery for one gateway, put together: the InstanceId persisted in the
// state directory and the UDP responder, which reads presence from the broker
// store; wrap that store with withPresenceFeed(store, () => responder.refresh())
// so every change reaches it. The cluster primary (or the single process)
// calls this once; workers serve the HTTP side only.
//
// In a farm sharing Redis (`instanceTag` given) the store holds every
// gateway's displays: this responder announces and answers only for those
// whose control socket this gateway holds (their presence names its tag), so
// a presenter's computer gets one answer per display. The endpoint address
// comes from the farm's seed (wsdIdentity.farmDeviceSeed) and is the same
// whichever gateway holds the display.
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config/configSchema.js';
import type { BrokerStore } from '../broker/brokerStore.js';
import { ownedByInstance } from '../broker/presenceOwner.js';
import type { WsdUdpMetrics } from '../metrics/gatewayMetrics.js';
import { deviceSeedOf, displayEndpoint, startWsdInstance } from './wsdIdentity.js';
import { WsdResponder } from './wsdResponder.js';

export interface DiscoveryOptions {
  readonly config: GatewayConfig & { stateDir: string };
  readonly store: BrokerStore;
  readonly logger: Logger;
  readonly metrics: WsdUdpMetrics;
  /** The listener's real port (config.listen.port may be 0 in tests). */
  readonly listenPort?: number | undefined;
  readonly udpPort?: number | undefined;
  /** Set in a farm (broker.store redis): this gateway's tag, which its displays' presences carry. */
  readonly instanceTag?: string | undefined;
  /** The farm's shared secret, which the endpoints' seed is derived from (with `instanceTag`). */
  readonly sessionSecret?: Buffer | undefined;
}

/** How often a farm's responder reads presence again without being told. */
const FARM_REFRESH_MS = 5000;

export async function startDiscovery(options: DiscoveryOptions): Promise<WsdResponder> {
  const { config, store, logger, metrics, instanceTag } = options;
  const identity = startWsdInstance(config.stateDir);
  const farm = instanceTag !== undefined && options.sessionSecret !== undefined;
  const seed = deviceSeedOf(farm, options.sessionSecret ?? Buffer.alloc(0), () => identity.deviceSeed);
  const responder = await WsdResponder.start({
    ...config.wsd,
    instanceId: identity.instanceId,
    listen: { port: options.listenPort ?? config.listen.port, tls: config.listen.tls },
    // The store's displays (config seeds and those made through the admin API), not the config file's.
    online: async () => {
      const [displays, presence] = await Promise.all([store.listDisplays(), store.listPresence()]);
      const known = new Set(displays.map((display) => display.id));
      const present = presence.filter((entry) => known.has(entry.displayId));
      const ours = instanceTag === undefined ? present : present.filter((entry) => ownedByInstance(entry.owner, instanceTag));
      return {
        online: ours.map((entry) => ({
          id: entry.displayId,
          endpoint: displayEndpoint(seed, entry.displayId),
          // Rises when the display comes online again, here or on another gateway (see AdvertisedDisplay).
          instanceId: Math.min(0xffffffff, Math.max(identity.instanceId, Math.floor(entry.since / 1000))),
        })),
        handedOver: new Set(present.filter((entry) => !ours.includes(entry)).map((entry) => entry.displayId)),
      };
    },
    logger: logger.child({ component: 'wsd' }),
    metrics,
    port: options.udpPort,
  });
  // Displays online before a restart of the primary are still in a shared store: announce them.
  await responder.refresh();
  if (farm) {
    // A change missed while Redis was away (its refresh failed) is caught up here; the feed does the rest.
    const poll = setInterval(() => void responder.refresh(), FARM_REFRESH_MS);
    poll.unref();
  }
  return responder;
}
