// The gateway as a library: what a Node program needs to run one gateway in its
// own process (the CLI, src/cli.ts, does the same with a cluster of workers
// around it; the test kit starts one per test this way).
export { createGatewayServer, type GatewayServer, type GatewayServerDeps } from './gatewayServer.js';
export { configSchema, type GatewayConfig } from './config/configSchema.js';
export { loadConfig, ConfigError } from './config/loadConfig.js';
export { ensureGatewayIdentity, type GatewayIdentity } from './config/gatewayIdentity.js';
export { createGatewayMetrics, type GatewayMetrics } from './metrics/gatewayMetrics.js';
export { LocalBus, type GatewayBus } from './cluster/gatewayBus.js';
// WS-Discovery: the one responder per gateway (the CLI runs it in the cluster primary).
export { WsdResponder, type WsdResponderOptions } from './wsd/wsdResponder.js';
export { createWsdUdpMetrics, type WsdUdpMetrics } from './metrics/gatewayMetrics.js';
