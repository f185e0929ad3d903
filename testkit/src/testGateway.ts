import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { configSchema, createGatewayMetrics, createGatewayServer, ensureGatewayIdentity, openBrokerBackend, type GatewayConfig, type GatewayMetrics } from '@lanterna/gateway';

export interface TestGateway {
  url: string; // ws://127.0.0.1:PORT
  httpUrl: string;
  port: number;
  adminToken: string;
  /** /metrics as Prometheus text, fetched with the admin token it needs. */
  metricsText(): Promise<string>;
  stateDir: string;
  metrics: GatewayMetrics;
  /** The display's room PIN as the broker's store holds it now (what a presenter must type), or undefined before one was drawn. */
  roomPin(displayId: string): Promise<string | undefined>;
  /** The relay engine the gateway runs: `node`, or `native` (the Go data plane). */
  relayEngine: 'node' | 'native';
  close(): Promise<void>;
}

/**
 * The relay engine tests run against: LANTERNA_TEST_RELAY_ENGINE ("node" or
 * "native"), unless the overrides name one. The test runner runs the
 * data-socket tests a second time with "native".
 */
export function withTestRelayEngine(relay: unknown, env: NodeJS.ProcessEnv = process.env): unknown {
  const engine = env.LANTERNA_TEST_RELAY_ENGINE;
  if (engine === undefined || engine === '') return relay;
  if (engine !== 'node' && engine !== 'native') throw new Error(`LANTERNA_TEST_RELAY_ENGINE must be node or native, not "${engine}"`);
  const given = typeof relay === 'object' && relay !== null ? relay as Record<string, unknown> : {};
  return given.engine === undefined ? { ...given, engine } : given;
}

/**
 * An in-process gateway on a free loopback port (plain ws unless tls is asked
 * for), with its own state dir — or `options.stateDir`, kept on close, for a
 * restart. Its broker store is what `broker` in the overrides says (the
 * embedded one by default, Redis with `broker: { store: 'redis', redisUrl }`).
 */
export async function startTestGateway(overrides: Partial<Record<keyof GatewayConfig, unknown>> = {}, options: { stateDir?: string } = {}): Promise<TestGateway> {
  const stateDir = options.stateDir ?? mkdtempSync(join(tmpdir(), 'lanterna-gw-'));
  const config = {
    ...configSchema.parse({
      listen: { host: '127.0.0.1', port: 0, tls: false },
      policy: { allowNetworks: ['127.0.0.0/8'], allowPorts: ['1024-65535'] },
      logLevel: process.env.LANTERNA_TEST_LOG ?? 'silent',
      ...overrides,
      relay: withTestRelayEngine(overrides.relay),
    }),
    stateDir,
  };
  const identity = await ensureGatewayIdentity(config);
  const metrics = createGatewayMetrics();
  const logger = pino({ level: config.logLevel });
  const backend = await openBrokerBackend(config, 'single', logger, identity.sessionSecret);
  const gateway = createGatewayServer({ config, identity, metrics, logger, bus: backend.bus, store: backend.store, pins: backend.pins, storeProblem: backend.problem });
  const port = await gateway.listen();
  const scheme = config.listen.tls ? 'wss' : 'ws';
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    httpUrl: `${config.listen.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    adminToken: identity.adminToken,
    metricsText: async () => (await fetch(`${config.listen.tls ? 'https' : 'http'}://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${identity.adminToken}` } })).text(),
    stateDir,
    metrics,
    roomPin: async (displayId) => (await backend.store.getRoomPin(displayId))?.pin,
    relayEngine: gateway.relayEngine,
    close: async () => {
      await gateway.close(500);
      await backend.close();
      if (!options.stateDir) rmSync(stateDir, { recursive: true, force: true });
    },
  };
}
