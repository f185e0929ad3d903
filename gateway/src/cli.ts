#!/usr/bin/env node
import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';
import { Command } from 'commander';
import { pino } from 'pino';
import { AggregatorRegistry, Registry } from 'prom-client';
import { configForCommand } from '@lanterna/protocol';
import { loadConfig, ConfigError } from './config/loadConfig.js';
import { ensureGatewayIdentity, StateDirError } from './config/gatewayIdentity.js';
import { createGatewayMetrics, createWsdUdpMetrics } from './metrics/gatewayMetrics.js';
import { relayBusInPrimary } from './cluster/gatewayBus.js';
import { withPresenceFeed } from './broker/presenceFeed.js';
import { newInstanceTag } from './broker/presenceOwner.js';
import type { BrokerStore } from './broker/brokerStore.js';
import { startDiscovery } from './wsd/discoveryService.js';
import type { WsdResponder } from './wsd/wsdResponder.js';
import { startTimerCensus } from './metrics/timerCensus.js';
import { serveBrokerStoreInPrimary } from './cluster/brokerStoreHost.js';
import { sendToWorker } from './cluster/sendToWorker.js';
import { EmbeddedBrokerStore, BrokerStateError, brokerStateFile } from './broker/embeddedBrokerStore.js';
import { createGatewayServer } from './gatewayServer.js';
import type { RelayEngine } from './dataplane/relayEngine.js';
import { openBrokerBackend, readRedisFiles } from './brokerBackend.js';
import { FilePinStore, PinStoreError, pinFile } from './policy/pinStore.js';

const program = new Command()
  .name('lanterna-gateway')
  .description('Lanterna gateway: RDP/TLS termination and whole-PDU WebSocket relay')
  .option('-c, --config <file>', 'JSON configuration file (also LANTERNA_CONFIG)')
  .option('--check', 'validate the configuration and exit')
  .parse();
const options = program.opts<{ config?: string; check?: boolean }>();

const config = configForCommand(process, {
  command: 'lanterna-gateway', check: options.check,
  load: () => loadConfig({ file: options.config }),
  isConfigError: (error) => error instanceof ConfigError,
});

const logger = pino({ level: config.logLevel, base: { pid: process.pid, role: cluster.isPrimary ? 'primary' : 'worker' } });
const workers = config.workers === 0 ? availableParallelism() : config.workers;
/** How the primary hands its workers this gateway instance's tag (broker/presenceOwner.ts). */
const INSTANCE_TAG_ENV = 'LANTERNA_INSTANCE_TAG';
/** A worker tells the primary's WS-Discovery responder that presence changed (Redis: the primary hears nothing else). */
const PRESENCE_CHANGED = 'lanternaPresenceChanged';

async function runPrimary(): Promise<void> {
  const identity = await ensureGatewayIdentity(config);
  const embedded = config.broker.store === 'embedded';
  // An unreadable password or CA file stops the start here (exit 2), not in every worker it would fork.
  if (!embedded) readRedisFiles(config.broker);
  try {
    if (embedded) await new FilePinStore(pinFile(config.stateDir)).check();
  } catch (error) {
    if (error instanceof PinStoreError) throw new StateDirError(error.message);
    throw error;
  }
  for (const repair of identity.repairs) logger.warn({ event: 'state-dir-repaired' }, repair);
  if (identity.tls.generated) logger.info({ fingerprint: identity.tls.fingerprint }, 'generated a self-signed certificate for the kiosk-facing listener');
  if (!config.adminToken) logger.info({ file: `${config.stateDir}/admin-token` }, 'admin token is in the state directory');
  // In a farm sharing Redis, the presences this gateway's workers record name it: its responder announces those only.
  const instanceTag = embedded ? undefined : newInstanceTag();
  if (workers <= 1) {
    await runWorker(true, instanceTag);
    return;
  }
  const primaryRegistry = new Registry();
  let discovery: WsdResponder | undefined;
  if (embedded) {
    // One broker store for every worker: a session token is claimed once, whichever worker it reaches.
    // The one WS-Discovery responder sits beside it and hears every presence change.
    relayBusInPrimary();
    const served = await withDiscovery(await EmbeddedBrokerStore.open(brokerStateFile(config.stateDir)), primaryRegistry, config.listen.port);
    discovery = served.discovery;
    serveBrokerStoreInPrimary(served.store, (loss) => {
      if (loss.sessionsEnded + loss.displaysOffline > 0) logger.warn({ event: 'worker-lost', worker: loss.workerPid, ...loss }, 'ended the sessions and cleared the displays a dead worker held');
    });
  } else if (config.wsd.enabled) {
    // With Redis every worker reaches the shared store and bus itself; the primary's responder reads
    // presence from Redis too, and its workers say when they changed it.
    const backend = await openBrokerBackend(config, 'single', logger, identity.sessionSecret);
    discovery = (await withDiscovery(backend.store, primaryRegistry, config.listen.port, instanceTag, identity.sessionSecret)).discovery;
    cluster.on('message', (_worker, message: unknown) => {
      if (typeof message === 'object' && message !== null && PRESENCE_CHANGED in message) void discovery?.refresh();
    });
  }
  const workerEnv = instanceTag ? { [INSTANCE_TAG_ENV]: instanceTag } : {};
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: unknown) => {
    if (typeof message === 'object' && message !== null && 'lanternaMetricsRequest' in message) {
      const id = (message as { lanternaMetricsRequest: number }).lanternaMetricsRequest;
      // The workers' metrics summed, then the primary's own (the UDP responder's, named apart).
      Promise.all([aggregator.clusterMetrics(), primaryRegistry.metrics()])
        .then(([workersText, primaryText]) => sendToWorker(worker, { lanternaMetricsReply: id, text: `${workersText}\n${primaryText}` }))
        .catch((error: unknown) => sendToWorker(worker, { lanternaMetricsReply: id, text: `# error ${String(error)}\n` }));
    }
  });
  let stopping = false;
  let ready = 0;
  // Counted from the workers' own word, not cluster's 'listening': with the
  // native engine a worker listens on a private Unix socket, which the
  // primary never hears of (its data plane holds the shared port). The engine is the one they chose.
  cluster.on('message', (_worker, message: unknown) => {
    if (!isWorkerListening(message)) return;
    ready += 1;
    if (ready === workers) logger.info({ port: config.listen.port, workers, tls: config.listen.tls, relayEngine: message.relayEngine }, 'listening');
  });
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    logger.error({ worker: worker.process.pid, code, signal }, 'worker died, starting another');
    cluster.fork(workerEnv);
  });
  for (let i = 0; i < workers; i += 1) cluster.fork(workerEnv);
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ drainMs: config.timeouts.drainMs }, 'draining');
    // Bye for every display first: presenters stop choosing this gateway while it drains.
    // (its copies finish before the primary exits)
    const byes = discovery?.close() ?? Promise.resolve();
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    setTimeout(() => process.exit(0), config.timeouts.drainMs + 5000).unref();
    cluster.on('exit', () => { if (Object.keys(cluster.workers ?? {}).length === 0) void byes.then(() => process.exit(0)); });
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

async function runWorker(single: boolean, singleInstanceTag?: string): Promise<void> {
  const identity = await ensureGatewayIdentity(config);
  const metrics = createGatewayMetrics();
  if (config.diagnostics.timerCensus) startTimerCensus(metrics.registry);
  let metricsText: (() => Promise<string>) | undefined;
  if (!single) {
    AggregatorRegistry.setRegistries([metrics.registry]);
    // Constructing one installs prom-client's worker-side listener that answers the primary.
    new AggregatorRegistry();
    metricsText = clusterMetricsText;
  }
  const backend = await openBrokerBackend(config, single ? 'single' : 'worker', logger, identity.sessionSecret);
  const instanceTag = single ? singleInstanceTag : process.env[INSTANCE_TAG_ENV];
  const { store, discovery } = single
    ? await withDiscovery(backend.store, metrics.registry, config.listen.port, instanceTag, identity.sessionSecret)
    : { store: workerStore(backend.store), discovery: undefined };
  const gateway = createGatewayServer({
    config, identity, metrics, logger,
    bus: backend.bus, store, pins: backend.pins, storeProblem: backend.problem,
    metricsText, instanceTag,
  });
  const port = await gateway.listen();
  if (single) logger.info({ port, workers: 1, tls: config.listen.tls, relayEngine: gateway.relayEngine }, 'listening');
  else process.send?.({ lanternaWorkerListening: port, relayEngine: gateway.relayEngine } satisfies WorkerListening);
  const stop = (): void => {
    // Bye for every display first (presenters stop choosing this gateway), and its copies out before the exit.
    Promise.all([discovery?.close(), gateway.close(config.timeouts.drainMs).then(() => backend.close())])
      .then(() => process.exit(0))
      .catch((error: unknown) => { logger.error({ err: error }, 'drain failed'); process.exit(1); });
  };
  process.once('SIGTERM', stop);
  if (single) process.once('SIGINT', stop);
}

/**
 * A worker's store. With Redis it reaches the store itself, so it tells the
 * primary's responder when it changed presence (with the embedded store the
 * primary serves the store and sees every change).
 */
function workerStore(base: BrokerStore): BrokerStore {
  if (!config.wsd.enabled || config.broker.store !== 'redis') return base;
  return withPresenceFeed(base, () => process.send?.({ [PRESENCE_CHANGED]: true }));
}

/**
 * The store wrapped so presence changes reach the WS-Discovery responder,
 * when discovery is on. A responder that cannot start (the port taken without
 * address reuse, no such interface) is logged, and the gateway runs without it:
 * the admin API and signage still work.
 */
async function withDiscovery(
  base: BrokerStore, registry: Registry, listenPort: number, instanceTag?: string, sessionSecret?: Buffer,
): Promise<{ store: BrokerStore; discovery: WsdResponder | undefined }> {
  if (!config.wsd.enabled) return { store: base, discovery: undefined };
  let discovery: WsdResponder | undefined;
  const store = withPresenceFeed(base, () => void discovery?.refresh());
  try {
    discovery = await startDiscovery({ config, store: base, logger, metrics: createWsdUdpMetrics(registry), listenPort, instanceTag, sessionSecret });
  } catch (error) {
    logger.error({ event: 'wsd-failed', err: error }, 'WS-Discovery responder could not start; displays are not announced');
  }
  return { store, discovery };
}

let nextRequest = 0;
function clusterMetricsText(): Promise<string> {
  const id = ++nextRequest;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { process.off('message', onMessage); reject(new Error('metrics aggregation timed out')); }, 5000);
    function onMessage(message: unknown): void {
      if (typeof message === 'object' && message !== null && (message as { lanternaMetricsReply?: number }).lanternaMetricsReply === id) {
        clearTimeout(timer);
        process.off('message', onMessage);
        resolve((message as { text: string }).text);
      }
    }
    process.on('message', onMessage);
    process.send?.({ lanternaMetricsRequest: id });
  });
}

interface WorkerListening { lanternaWorkerListening: number; relayEngine: RelayEngine }

function isWorkerListening(message: unknown): message is WorkerListening {
  return typeof message === 'object' && message !== null && 'lanternaWorkerListening' in message;
}

const main = cluster.isPrimary ? runPrimary() : runWorker(false);
main.catch((error: unknown) => {
  if (error instanceof StateDirError || error instanceof BrokerStateError || error instanceof ConfigError) {
    process.stderr.write(`lanterna-gateway: ${error.message}\n`);
    process.exit(2);
  }
  logger.fatal({ err: error }, 'gateway failed to start');
  process.exit(1);
});
