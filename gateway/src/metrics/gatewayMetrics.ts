import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Every metric the gateway exports, in one registry per process (cluster workers are aggregated by the primary). */
export function createGatewayMetrics(registry = new Registry()) {
  collectDefaultMetrics({ register: registry });
  const direction = ['direction'] as const;
  return {
    registry,
    activeSessions: new Gauge({ name: 'lanterna_sessions_active', help: 'RDP sessions relaying now', registers: [registry] }),
    displaysOnline: new Gauge({ name: 'lanterna_displays_online', help: 'Displays with an authenticated control socket', registers: [registry] }),
    sessionsTotal: new Counter({ name: 'lanterna_sessions_total', help: 'Sessions that reached the relay phase', registers: [registry] }),
    bytes: new Counter({ name: 'lanterna_relay_bytes_total', help: 'Bytes relayed (RDP plaintext)', labelNames: direction, registers: [registry] }),
    pdus: new Counter({ name: 'lanterna_relay_pdus_total', help: 'Whole PDUs relayed', labelNames: direction, registers: [registry] }),
    frames: new Counter({ name: 'lanterna_relay_ws_messages_total', help: 'WebSocket messages relayed (each holds one or more whole PDUs)', labelNames: direction, registers: [registry] }),
    copies: new Counter({ name: 'lanterna_relay_copied_bytes_total', help: 'Bytes copied by the framer because a PDU straddled TLS reads', registers: [registry] }),
    pauses: new Counter({ name: 'lanterna_relay_backpressure_pauses_total', help: 'Times a session stopped reading its server because the kiosk lagged', registers: [registry] }),
    handshake: new Histogram({
      name: 'lanterna_handshake_phase_seconds', help: 'Duration of each handshake phase toward the RDP server',
      labelNames: ['phase'] as const, buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registers: [registry],
    }),
    relayLatency: new Histogram({
      name: 'lanterna_relay_latency_seconds', help: 'TLS read to WebSocket write completion, server to kiosk',
      buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.02, 0.04, 0.08, 0.16, 0.5], registers: [registry],
    }),
    errors: new Counter({ name: 'lanterna_session_errors_total', help: 'Sessions ended by an error', labelNames: ['phase', 'code'] as const, registers: [registry] }),
  };
}

export type GatewayMetrics = ReturnType<typeof createGatewayMetrics>;
