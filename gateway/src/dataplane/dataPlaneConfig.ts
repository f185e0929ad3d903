// The data plane's `configure` message (docs/native-data-plane.md,
// "RPC"): everything it needs to run the port and the data sockets as this
// gateway would, from the gateway's own configuration and tables. Its shape
// is the contract's (protocol's dataPlaneContract.ts `configureConfigSchema`, bound to Go's
// rpc.Config by contract.json).
import { ERROR_CODES, KIOSK_SUBPROTOCOL, MAX_JSON_FRAME_BYTES } from '@lanterna/protocol';
import type { GatewayConfig } from '../config/configSchema.js';
import type { ConfigureConfig } from '@lanterna/protocol';

export interface DataPlaneSetting {
  config: GatewayConfig;
  /** The kiosk-facing certificate and key (PEM), used when listen.tls. */
  tls: { cert: string; key: string };
  /** certificates.caFile's PEM, when configured. */
  caPem?: string | undefined;
  /** The Unix socket the data plane passes every other request to. */
  upstreamSocket: string;
  /** Cluster workers share the port (SO_REUSEPORT). */
  reusePort: boolean;
  /** Cluster workers: where their data planes find each other (siblingDirectory.ts). */
  peerDir?: string | undefined;
}

export function dataPlaneConfiguration(setting: DataPlaneSetting): ConfigureConfig {
  const { config } = setting;
  const { listen, relay, timeouts, limits } = config;
  return {
    listen: {
      host: listen.host, port: listen.port, tls: listen.tls,
      ...(listen.tls ? { certPem: setting.tls.cert, keyPem: setting.tls.key } : {}),
      reusePort: setting.reusePort,
    },
    upstreamSocket: setting.upstreamSocket,
    relay: {
      highWaterBytes: relay.highWaterBytes, lowWaterBytes: relay.lowWaterBytes, maxFrameBytes: relay.maxFrameBytes, idleTimeoutMs: relay.idleTimeoutMs,
      maxBacklogBytes: relay.maxBacklogBytes, presenterBytesPerSecond: relay.presenterBytesPerSecond,
    },
    timeouts: {
      helloMs: timeouts.helloMs, requestMs: timeouts.requestMs, connectMs: timeouts.connectMs, confirmMs: timeouts.confirmMs, tlsMs: timeouts.tlsMs,
      httpHeadersMs: timeouts.httpHeadersMs, httpRequestMs: timeouts.httpRequestMs, tlsHandshakeMs: timeouts.tlsHandshakeMs,
      writeMs: timeouts.writeMs,
    },
    limits: {
      maxConnections: limits.maxConnections, perAddressConnections: limits.perAddressConnections, perNetworkConnections: limits.perNetworkConnections,
      maxPendingSockets: limits.maxPendingSockets, perSourcePendingSockets: limits.perSourcePendingSockets, maxSessions: limits.maxSessions,
      maxHeaderBytes: limits.maxHeaderBytes,
    },
    requireNla: config.policy.requireNla,
    ...(setting.caPem === undefined ? {} : { caPem: setting.caPem }),
    maxJsonFrameBytes: MAX_JSON_FRAME_BYTES,
    subprotocol: KIOSK_SUBPROTOCOL,
    errors: Object.fromEntries(Object.entries(ERROR_CODES).map(([code, entry]) => [code, { message: entry.message, close: entry.close }])),
    ...(setting.peerDir === undefined ? {} : { peerDir: setting.peerDir }),
  };
}
