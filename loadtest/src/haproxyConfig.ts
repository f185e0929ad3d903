// The generated haproxy.cfg for a gateway farm. A session's control socket
// and data socket must land on the same instance (the session lives in that
// instance's memory; elsewhere the data socket gets unknown-session), so the
// balancer hashes the client's source address (`balance source`): one display
// is one client address, as kiosks on a LAN are. Layer 4 (mode tcp) keeps the
// balancer's own cost low; WebSocket upgrades pass through untouched.
//
// When an instance dies its displays must land on another one at once (the
// chaos run times it): a refused connection marks the server down on the spot
// (`observe layer4`, `on-error mark-down`) and the retry goes to another
// server (`option redispatch 1`: every retry may redispatch) instead of
// waiting for health checks (every second, two misses) to notice.

export interface HaproxyConfigOptions {
  listenPort: number;
  backendPorts: readonly number[];
  maxConnections: number;
}

export function haproxyConfig(options: HaproxyConfigOptions): string {
  const servers = options.backendPorts.map((port, index) => `  server gw${index} 127.0.0.1:${port}`);
  return [
    'global',
    `  maxconn ${options.maxConnections}`,
    '  nbthread 1',
    '',
    'defaults',
    '  mode tcp',
    '  retries 2',
    '  option redispatch 1',
    '  timeout connect 5s',
    '  timeout client 1h',
    '  timeout server 1h',
    '',
    'frontend kiosks',
    `  bind 127.0.0.1:${options.listenPort}`,
    `  maxconn ${options.maxConnections}`,
    '  default_backend gateways',
    '',
    'backend gateways',
    '  balance source',
    '  hash-type consistent',
    '  default-server check inter 1s fall 2 rise 2 observe layer4 error-limit 1 on-error mark-down',
    ...servers,
    '',
  ].join('\n');
}
