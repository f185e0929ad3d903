// The generated haproxy.cfg for a gateway farm (the load test's farm and the
// scale-out tests). Layer 4 (mode tcp): WebSocket upgrades pass through
// untouched and the balancer's own cost stays low.
//
// `balance source` hashes the client's address, so one display (one address on
// a LAN) keeps landing on one instance: what a farm without a shared store
// needs (its sessions live in one instance's memory). With a shared broker
// store (Redis) any instance serves any socket, and `roundrobin` spreads them;
// a dead instance is skipped at once: a refused connection marks the server
// down on the spot (`observe layer4`, `on-error mark-down`) and the retry goes
// to another server (`option redispatch 1`) instead of waiting for the health
// checks (two misses) to notice — the chaos run times it.
//
// `forwardFor` runs HAProxy as an HTTP proxy instead (`mode http`, WebSocket
// upgrades tunnelled) that tells the gateways who the client is in
// X-Forwarded-For (`option forwardfor`): what the gateways' per-address
// limits need behind a balancer (they trust it through listen.trustedProxies).
// Layer 4 stays the default for the load test: plain TCP costs the balancer less.

export interface HaproxyConfigOptions {
  listenPort: number;
  backendPorts: readonly number[];
  maxConnections: number;
  /** `source` (default) keeps a client on one instance; `roundrobin` for a farm sharing its state. */
  balance?: 'source' | 'roundrobin';
  /** Health-check interval: `1s` by default. */
  checkInterval?: string;
  /** HTTP mode with X-Forwarded-For (plain-HTTP gateways only: it must read the requests). */
  forwardFor?: boolean;
}

export function haproxyConfig(options: HaproxyConfigOptions): string {
  const inter = options.checkInterval ?? '1s';
  const servers = options.backendPorts.map((port, index) => `  server gw${index} 127.0.0.1:${port}`);
  const balance = options.balance ?? 'source';
  return [
    'global',
    `  maxconn ${options.maxConnections}`,
    '  nbthread 1',
    '',
    'defaults',
    ...(options.forwardFor
      ? ['  mode http', '  option forwardfor', '  timeout http-request 10s', '  timeout tunnel 1h']
      : ['  mode tcp']),
    '  timeout connect 5s',
    '  timeout client 1h',
    '  timeout server 1h',
    '  retries 2',
    '  option redispatch 1',
    '',
    'frontend kiosks',
    `  bind 127.0.0.1:${options.listenPort}`,
    `  maxconn ${options.maxConnections}`,
    '  default_backend gateways',
    '',
    'backend gateways',
    `  balance ${balance}`,
    ...(balance === 'source' ? ['  hash-type consistent'] : []),
    `  default-server check inter ${inter} fall 2 rise 1 observe layer4 error-limit 1 on-error mark-down`,
    ...servers,
    '',
  ].join('\n');
}
