import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { TalliedHistogram } from './talliedHistogram.js';

/**
 * The relay's per-message counts, as plain numbers: the pump adds to them
 * (a few additions per message, no label lookup, no allocation) and the
 * counters below take them over when they are read (a scrape, the cluster's
 * aggregation). A prom-client `inc` with a label costs a label-key string and
 * a map lookup each; at KW v1 that was six calls per round trip.
 */
export interface RelayTally {
  bytesToKiosk: number;
  bytesToServer: number;
  pdusToKiosk: number;
  pdusToServer: number;
  framesToKiosk: number;
  framesToServer: number;
  copiedBytes: number;
  pauses: number;
}

const TO_KIOSK = { direction: 'to-kiosk' } as const;
const TO_SERVER = { direction: 'to-server' } as const;

/** Every metric the gateway exports, in one registry per process (cluster workers are aggregated by the primary). */
export function createGatewayMetrics(registry = new Registry()) {
  collectDefaultMetrics({ register: registry });
  const direction = ['direction'] as const;
  const relayTally: RelayTally = { bytesToKiosk: 0, bytesToServer: 0, pdusToKiosk: 0, pdusToServer: 0, framesToKiosk: 0, framesToServer: 0, copiedBytes: 0, pauses: 0 };
  /** Moves a direction pair of tallies into a labelled counter (zeros too, so both series exist from the start). */
  const takeInto = (counter: Counter<'direction'>, toKiosk: 'bytesToKiosk' | 'pdusToKiosk' | 'framesToKiosk', toServer: 'bytesToServer' | 'pdusToServer' | 'framesToServer'): void => {
    counter.inc(TO_KIOSK, relayTally[toKiosk]);
    counter.inc(TO_SERVER, relayTally[toServer]);
    relayTally[toKiosk] = 0;
    relayTally[toServer] = 0;
  };
  return {
    relayTally,
    registry,
    activeSessions: new Gauge({ name: 'lanterna_sessions_active', help: 'RDP sessions relaying now', registers: [registry] }),
    displaysOnline: new Gauge({ name: 'lanterna_displays_online', help: 'Displays with an authenticated control socket', registers: [registry] }),
    sessionsTotal: new Counter({ name: 'lanterna_sessions_total', help: 'Sessions that reached the relay phase', registers: [registry] }),
    bytes: new Counter({
      name: 'lanterna_relay_bytes_total', help: 'Bytes relayed (RDP plaintext)', labelNames: direction, registers: [registry],
      collect() { takeInto(this, 'bytesToKiosk', 'bytesToServer'); },
    }),
    pdus: new Counter({
      name: 'lanterna_relay_pdus_total', help: 'Whole PDUs relayed', labelNames: direction, registers: [registry],
      collect() { takeInto(this, 'pdusToKiosk', 'pdusToServer'); },
    }),
    frames: new Counter({
      name: 'lanterna_relay_ws_messages_total', help: 'WebSocket messages relayed (each holds one or more whole PDUs)', labelNames: direction, registers: [registry],
      collect() { takeInto(this, 'framesToKiosk', 'framesToServer'); },
    }),
    copies: new Counter({
      name: 'lanterna_relay_copied_bytes_total', help: 'Bytes copied by the framer because a PDU straddled TLS reads', registers: [registry],
      collect() { this.inc(relayTally.copiedBytes); relayTally.copiedBytes = 0; },
    }),
    pauses: new Counter({
      name: 'lanterna_relay_backpressure_pauses_total', help: 'Times a session stopped reading its server because the kiosk lagged', registers: [registry],
      collect() { this.inc(relayTally.pauses); relayTally.pauses = 0; },
    }),
    handshake: new Histogram({
      name: 'lanterna_handshake_phase_seconds', help: 'Duration of each handshake phase toward the RDP server',
      labelNames: ['phase'] as const, buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registers: [registry],
    }),
    // Observed once per frame to a kiosk: tallied in plain numbers (talliedHistogram.ts), exported as prom-client's.
    relayLatency: new TalliedHistogram({
      name: 'lanterna_relay_latency_seconds', help: 'TLS read to WebSocket write completion, server to kiosk',
      buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.02, 0.04, 0.08, 0.16, 0.5], registers: [registry],
    }),
    errors: new Counter({ name: 'lanterna_session_errors_total', help: 'Sessions ended by an error', labelNames: ['phase', 'code'] as const, registers: [registry] }),
    wsdHttpMessages: new Counter({
      name: 'lanterna_wsd_http_messages_total', help: 'WS-Transfer Get and projector service messages over HTTP(S), by direction and kind',
      labelNames: ['direction', 'kind'] as const, registers: [registry],
    }),
    wsdHttpDropped: new Counter({ name: 'lanterna_wsd_http_dropped_total', help: 'WS-Discovery HTTP requests refused unread, by reason', labelNames: ['reason'] as const, registers: [registry] }),
    tokenChecksRefused: new Counter({
      name: 'lanterna_token_checks_refused_total', help: 'Token checks refused unread because the address or its IPv6 /64 showed too many wrong tokens, by check',
      labelNames: ['check'] as const, registers: [registry],
    }),
    pendingSocketsEvicted: new Counter({
      name: 'lanterna_pending_sockets_evicted_total', help: 'Unauthenticated WebSockets (Node\'s: control sockets, and data sockets with relay.engine node) closed to give their place to a newer one',
      registers: [registry],
    }),
  };
}

/**
 * The UDP responder's metrics. It runs once per gateway (the cluster primary,
 * or the one process), so these live in that process's registry and are
 * named apart from the workers' aggregated ones.
 */
export function createWsdUdpMetrics(registry: Registry) {
  return {
    datagrams: new Counter({
      name: 'lanterna_wsd_udp_datagrams_total', help: 'WS-Discovery datagrams, by direction (in, out: every SOAP-over-UDP copy) and message kind',
      labelNames: ['direction', 'kind'] as const, registers: [registry],
    }),
    dropped: new Counter({ name: 'lanterna_wsd_udp_dropped_total', help: 'WS-Discovery datagrams dropped, by reason', labelNames: ['reason'] as const, registers: [registry] }),
    handleSeconds: new Histogram({
      name: 'lanterna_wsd_udp_handle_seconds', help: 'CPU time to read and decide one datagram',
      buckets: [0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.01], registers: [registry],
    }),
  };
}

export type WsdUdpMetrics = ReturnType<typeof createWsdUdpMetrics>;

export type GatewayMetrics = ReturnType<typeof createGatewayMetrics>;
