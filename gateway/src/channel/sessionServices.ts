// What either engine decides a session's data socket with, beside the part
// of the broker's session lifecycle it needs (each names its own `sessions`):
// the target and certificate policies, the bus that carries stops across
// gateways, the metrics and the logger. The Node engine's data channel, the
// native engine's decisions and the composition root all take these.
import type { Logger } from 'pino';
import type { TargetPolicy } from '../policy/targetPolicy.js';
import type { CertificatePolicy } from '../policy/certificatePolicy.js';
import type { GatewayBus } from '../cluster/gatewayBus.js';
import type { GatewayMetrics } from '../metrics/gatewayMetrics.js';

export interface SessionServices {
  policy: TargetPolicy;
  certificates: CertificatePolicy;
  bus: GatewayBus;
  metrics: GatewayMetrics;
  logger: Logger;
}
