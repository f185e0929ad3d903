// The gateway as a library: what a Node program needs to run one gateway in its
// own process (the CLI, src/cli.ts, does the same with a cluster of workers
// around it; the test kit starts one per test this way).
export { createGatewayServer, type GatewayServer, type GatewayServerDeps } from './gatewayServer.js';
export { configSchema, type GatewayConfig } from './config/configSchema.js';
export { loadConfig, ConfigError } from './config/loadConfig.js';
export { ensureGatewayIdentity, type GatewayIdentity } from './config/gatewayIdentity.js';
export { createGatewayMetrics, type GatewayMetrics } from './metrics/gatewayMetrics.js';
export { LocalBus, type GatewayBus } from './cluster/gatewayBus.js';

// The broker's state: what a program (or a test) picks a store with, and the stores themselves.
export { openBrokerBackend, type BrokerBackend } from './brokerBackend.js';
export type { BrokerStore, SessionRecord, DisplayRecord, DisplayBooking, AuditEntry, PinConflict, RoomRequest, RoomSettings } from './broker/brokerStore.js';
export { StoreUnavailableError } from './broker/brokerStore.js';
export { MemoryBrokerStore } from './broker/memoryBrokerStore.js';
export { EmbeddedBrokerStore, BrokerStateError, brokerStateFile } from './broker/embeddedBrokerStore.js';
export { RedisConnection } from './redis/redisConnection.js';
export { RedisBrokerStore } from './redis/redisBrokerStore.js';
export { RedisPinStore } from './redis/redisPinStore.js';
// WS-Discovery: the one responder per gateway (the CLI runs it in the cluster primary).
export { WsdResponder, type WsdResponderOptions } from './wsd/wsdResponder.js';
export { createWsdUdpMetrics, type WsdUdpMetrics } from './metrics/gatewayMetrics.js';
// relay.engine "native": where the data plane's binary is looked for, and the start-up error without it.
export { dataPlaneBinary, DataPlaneMissingError } from './dataplane/dataPlaneProcess.js';
