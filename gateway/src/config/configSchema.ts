import { desktopPreferenceSchema } from '@lanterna/protocol';
import { z } from 'zod';
import { canonicalPinKey } from '../policy/pinKey.js';
import { networkProblem } from '../policy/networkList.js';

/** Shorter secrets are refused wherever they come from (config, env or the state directory). */
export const MIN_ADMIN_TOKEN_CHARS = 16;
export const MIN_SESSION_SECRET_CHARS = 32;

const port = z.number().int().min(0).max(65535);
const credentials = z.object({
  username: z.string().min(1),
  password: z.string(),
  domain: z.string().optional(),
});

export const targetSchema = z.object({
  host: z.string().min(1),
  port: port.refine((p) => p > 0, 'port must be 1-65535').default(3389),
  name: z.string().optional(),
});

const displaySchema = z.object({
  id: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'display id: 1-64 of A-Z a-z 0-9 . _ -'),
  name: z.string().min(1).optional(),
  /** Where the display is ("Building 2, floor 3"): on its idle screen and in the presenters' list. */
  location: z.string().min(1).max(200).optional(),
  token: z.string().min(16, 'display token must be at least 16 characters'),
  autoProject: targetSchema.extend({
    credentials: credentials.optional(),
    /**
     * A finger on the display controls this computer (an interactive signage
     * display: the administrator's decision, made here, as a presenter makes
     * it with the presenter page's switch). Off by default.
     */
    touch: z.boolean().optional(),
  }).optional(),
  /** The display's desktop, where the panel's own is not wanted: `scale` (100–500 %), `width` and `height` together (docs/kiosk-protocol.md). */
  desktop: z.optional(desktopPreferenceSchema),
});

const portRange = z.string().regex(/^\d{1,5}(-\d{1,5})?$/, 'port range like "3389" or "1024-65535"');

/** One typed schema for the whole gateway: defaults here, then file, then env. */
export const configSchema = z.object({
  listen: z.object({
    host: z.string().default('0.0.0.0'),
    port: port.default(8443),
    tls: z.boolean().default(true),
    /** Host names served besides IP literals, localhost and this machine's name (DNS-rebinding guard). */
    allowedHosts: z.array(z.string().regex(/^[A-Za-z0-9.-]{1,253}$/, 'a host name')).default([]),
    /** Origins of pages elsewhere allowed to open the WebSockets (our own pages always are). */
    allowedOrigins: z.array(z.url()).default([]),
    /**
     * HTTP proxies (addresses or CIDR networks) whose X-Forwarded-For names the
     * client for the per-address rate limits and wrong-PIN limits; empty:
     * every request is from its socket's peer, and the header is ignored.
     */
    trustedProxies: z.array(z.string().refine((cidr) => networkProblem(cidr) === undefined, 'an address or network like "10.0.0.5" or "10.0.0.0/24"')).default([]),
  }).prefault({}),
  tls: z.object({
    certFile: z.string().optional(),
    keyFile: z.string().optional(),
  }).prefault({}),
  stateDir: z.string().optional(),
  workers: z.number().int().min(0).max(256).default(0),
  /** Bearer token for /metrics (Prometheus), so scrapers need not hold the admin token. */
  metricsToken: z.string().min(MIN_ADMIN_TOKEN_CHARS, `metrics token must be at least ${MIN_ADMIN_TOKEN_CHARS} characters`).optional(),
  adminToken: z.string().min(MIN_ADMIN_TOKEN_CHARS, `admin token must be at least ${MIN_ADMIN_TOKEN_CHARS} characters`).optional(),
  /** Secret that signs session tokens so any worker can check them; generated when absent. */
  sessionSecret: z.string().min(MIN_SESSION_SECRET_CHARS, `session secret must be at least ${MIN_SESSION_SECRET_CHARS} characters`).optional(),
  displays: z.array(displaySchema).default([]),
  policy: z.object({
    allowNetworks: z.array(z.string()).default(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '127.0.0.0/8', '::1/128', 'fc00::/7']),
    allowPorts: z.array(portRange).default(['3389']),
    /** Off by default: TLS-only presenters (GNOME, Weston, FreeRDP shadow without SAM) are common in rooms. */
    requireNla: z.boolean().default(false),
  }).prefault({}),
  certificates: z.object({
    mode: z.enum(['first-use', 'ca', 'insecure']).default('first-use'),
    pins: z.record(z.string().refine((key) => canonicalPinKey(key) !== undefined, 'pin key like "rdp1.corp:3389" or "[::1]:3389"'), z.array(z.string().regex(/^sha256:([0-9A-F]{2}:){31}[0-9A-F]{2}$/, 'pin like sha256:AA:BB:… (32 bytes, upper-case hex)'))).default({}),
    caFile: z.string().optional(),
  }).prefault({}),
  relay: z.object({
    highWaterBytes: z.number().int().min(65536).default(1024 * 1024),
    lowWaterBytes: z.number().int().min(0).default(256 * 1024),
    maxFrameBytes: z.number().int().min(65536).max(16 * 1024 * 1024).default(256 * 1024),
    idleTimeoutMs: z.number().int().min(0).default(30 * 60 * 1000),
    /**
     * The most that may wait for a leg that does not read (the display's
     * socket, the server's), what the gateway writes on its own behalf
     * included (pongs, TLS key update answers): past it that peer is cut
     * with `peer-not-reading`. The high-water brake keeps relayed data
     * below highWaterBytes + a frame or two; this catches the rest.
     */
    maxBacklogBytes: z.number().int().min(256 * 1024).default(4 * 1024 * 1024),
    /**
     * The most a presenter page (a browser-source session's server leg) may
     * send per second, one second's burst; past it the gateway reads its
     * socket later (TCP pushes back on the page), it does not cut it.
     */
    presenterBytesPerSecond: z.number().int().min(64 * 1024).default(16 * 1024 * 1024),
    /**
     * Who carries the data sockets: `native` (one `lanterna-dataplane`
     * process per worker owns the port and the data sockets; Node keeps every
     * decision, docs/native-data-plane.md), `node` (this process), or `auto`:
     * native where its binary was built, else node with a warning
     * (dataplane/relayEngine.ts).
     */
    engine: z.enum(['auto', 'node', 'native']).default('auto'),
  }).prefault({}).refine((r) => r.lowWaterBytes < r.highWaterBytes, 'relay.lowWaterBytes must be below relay.highWaterBytes')
    .refine((r) => r.maxBacklogBytes >= r.highWaterBytes + 2 * r.maxFrameBytes, 'relay.maxBacklogBytes must be at least relay.highWaterBytes + 2 × relay.maxFrameBytes'),
  /** The listener's budget before any token is checked (per worker process). */
  limits: z.object({
    /** All open TCP connections (Node's server.maxConnections); beyond it new ones are dropped at once. */
    maxConnections: z.number().int().min(1).default(20000),
    /** Open TCP connections from one source address; behind a proxy every client shares the proxy's address. */
    perAddressConnections: z.number().int().min(1).default(256),
    /** Open TCP connections from one IPv6 /64 (a host picks addresses from its /64 at will; a LAN's displays share one: about two each). */
    perNetworkConnections: z.number().int().min(1).default(4096),
    /**
     * WebSockets not yet authenticated (Node's control sockets, and the data
     * plane's data sockets, each their own pool). Never refused for want of a
     * place: the oldest pending socket of the source holding the most gives
     * its place up (close 1013, api/pendingSockets.ts).
     */
    maxPendingSockets: z.number().int().min(1).default(512),
    /** Of those, from one source (IPv4 address, IPv6 /64): past it the source's own oldest gives its place up. */
    perSourcePendingSockets: z.number().int().min(1).default(64),
    /** Relaying sessions plus handshakes under way; beyond it a data socket is refused with gateway-busy. */
    maxSessions: z.number().int().min(1).default(5000),
    /** A request's head (request line and headers) in bytes, for both engines; beyond it 431. */
    maxHeaderBytes: z.number().int().min(8192).max(1024 * 1024).default(16 * 1024),
  }).prefault({}),
  timeouts: z.object({
    helloMs: z.number().int().min(100).default(5000),
    /** An HTTP request's headers (a WebSocket upgrade's too), and the whole request. */
    httpHeadersMs: z.number().int().min(100).default(10000),
    httpRequestMs: z.number().int().min(100).default(30000),
    /** The kiosk-facing TLS handshake (Node's default is 120 s, a slowloris gift). */
    tlsHandshakeMs: z.number().int().min(100).default(10000),
    /**
     * Every write that waits for a peer's room (front door, data sockets,
     * server legs; TLS's own writes too): a peer that takes nothing for this
     * long is cut, and its connection and places are freed.
     */
    writeMs: z.number().int().min(100).default(10000),
    requestMs: z.number().int().min(100).default(5000),
    /** Resolving a target's name (the connect path and the admin API's policy check). */
    dnsMs: z.number().int().min(100).default(5000),
    connectMs: z.number().int().min(100).default(5000),
    confirmMs: z.number().int().min(100).default(5000),
    tlsMs: z.number().int().min(100).default(10000),
    sessionTokenMs: z.number().int().min(1000).default(60000),
    heartbeatMs: z.number().int().min(1000).default(15000),
    drainMs: z.number().int().min(0).default(30000),
    /** Pause before a signage display (autoProject) is projected again; doubles while sessions fail at once. */
    reprojectMs: z.number().int().min(100).default(2000),
    reprojectMaxMs: z.number().int().min(100).default(60000),
  }).prefault({}),
  /**
   * Where the broker keeps displays, sessions, claims, bookings, pins and the
   * audit log: `embedded` (memory + stateDir/broker-state.json, one gateway)
   * or `redis` (shared by several gateways; they must share sessionSecret and
   * adminToken too).
   */
  broker: z.object({
    store: z.enum(['embedded', 'redis']).default('embedded'),
    redisUrl: z.string().regex(/^rediss?:\/\/[^\s]+$/, 'a URL like redis://host:6379/0 or rediss://…').optional(),
    /**
     * A file holding Redis's password (requirepass, or the ACL user's named
     * in redisUrl), read at start: a Docker or Kubernetes secret. Or put it in
     * redisUrl (redis://:PASSWORD@host…), not both.
     */
    redisPasswordFile: z.string().min(1).optional(),
    /** With rediss://: the CA (PEM) that signed Redis's certificate, trusted instead of the system's roots. */
    redisCaFile: z.string().min(1).optional(),
    /** Prefix of every key (and the event channel), so deployments can share one Redis. */
    keyPrefix: z.string().regex(/^[A-Za-z0-9:._-]{1,64}$/, '1-64 of A-Z a-z 0-9 : . _ -').default('lanterna:'),
    /** A display back online this soon after its session was last seen alive (its gateway died) is projected again. */
    resumeGraceMs: z.number().int().min(0).default(60_000),
  }).prefault({}).superRefine((broker, context) => {
    if (broker.store === 'redis' && !broker.redisUrl) context.addIssue({ code: 'custom', path: ['redisUrl'], message: 'required when broker.store is "redis"' });
    if (broker.redisCaFile && !broker.redisUrl?.startsWith('rediss://')) {
      context.addIssue({ code: 'custom', path: ['redisCaFile'], message: 'a CA is for TLS: redisUrl must be rediss://…' });
    }
    if (broker.redisPasswordFile && broker.redisUrl && /^rediss?:\/\/[^/@]*:[^/@]*@/.test(broker.redisUrl)) {
      context.addIssue({ code: 'custom', path: ['redisPasswordFile'], message: 'redisUrl names a password already: give it in one place' });
    }
  }),
  /** The admin API's request rate, per source address and gateway process (wrong tokens: tokenGuesses). */
  admin: z.object({
    requestsPerSecond: z.number().min(0.1).max(100_000).default(20),
    burst: z.number().int().min(1).max(100_000).default(60),
  }).prefault({}),
  /**
   * Wrong or missing tokens (admin, metrics, display) per window, counted in
   * the broker store so every worker and gateway shares them
   * (broker/tokenGuesses.ts): per address, and per IPv6 /64. Past either, every
   * token check from there is refused (429, or close 4429) until the window ends.
   */
  tokenGuesses: z.object({
    perAddress: z.object({ max: z.number().int().min(1).default(10), windowMs: z.number().int().min(1000).default(60_000) }).prefault({}),
    perNetwork: z.object({ max: z.number().int().min(1).default(30), windowMs: z.number().int().min(1000).default(60_000) }).prefault({}),
  }).prefault({}),
  /** The room PIN on each display's idle screen, which presenters must type (docs/presenter-api.md). */
  roomPin: z.object({
    /** 6 by default: see gateway/src/broker/roomPin.ts for the arithmetic against the limits below. */
    digits: z.number().int().min(4).max(10).default(6),
    /** A PIN no one used is replaced after this long (it is also replaced after each use). */
    rotateMs: z.number().int().min(10_000).default(15 * 60_000),
    /** The previous PIN still works this long after a timer rotation (someone may have just read it). */
    graceMs: z.number().int().min(0).default(30_000),
    /** Wrong PINs per display in a window, from all sources together: the bound on guessing. */
    perDisplay: z.object({ max: z.number().int().min(1).default(10), windowMs: z.number().int().min(1000).default(10 * 60_000) }).prefault({}),
    /** Wrong PINs per source address (IPv6: per /64) in a window. */
    perSource: z.object({ max: z.number().int().min(1).default(5), windowMs: z.number().int().min(1000).default(5 * 60_000) }).prefault({}),
  }).prefault({}),
  /** Ink on the display (issue 30): what the display may save for the presenter and the room. */
  ink: z.object({
    /** Off: the display's Save is refused (and its button hidden); people may still draw. */
    saving: z.boolean().default(true),
    /** How long a saved picture (a presenter's, or the idle screen's whiteboard) may be fetched. */
    keepMs: z.number().int().min(10_000).max(24 * 3600_000).default(30 * 60_000),
    /** Saves per display per minute (each is up to 8 MiB). */
    savesPerMinute: z.number().int().min(1).max(600).default(12),
  }).prefault({}),
  presenter: z.object({
    /** The presenter page's public address (e.g. "https://projector.corp/present"); by default the address the display reached the gateway at. */
    url: z.url().optional(),
    /** Presenter API requests per source address per minute, per gateway process. */
    requestsPerMinute: z.number().int().min(1).default(240),
  }).prefault({}),
  /**
   * WS-Discovery: every online display is announced on the LAN and answers
   * Probe/Resolve on UDP 3702 (one responder per gateway, in the cluster
   * primary). Off unless asked for: it answers anyone on those networks.
   */
  wsd: z.object({
    enabled: z.boolean().default(false),
    /** Interface names to announce on and answer from; empty: every interface with an address, loopback excepted. */
    interfaces: z.array(z.string().regex(/^[A-Za-z0-9_.:@-]{1,15}$/, 'an interface name like "eth0"')).default([]),
    /** Also ff02::c (needs the listener on "::" for the metadata to be reachable). */
    ipv6: z.boolean().default(true),
    /** WS-Discovery's APP_MAX_DELAY: answers to multicast Probes wait a random time up to this (spreads replies of many devices). */
    appMaxDelayMs: z.number().int().min(0).max(5000).default(500),
    /** Datagrams handled per second from one source address before the rest are dropped (a flood must not starve other presenters). */
    perSourceRate: z.number().int().min(1).default(200),
  }).prefault({}),
  /** Instruments for long test runs, off in production. */
  diagnostics: z.object({
    /** Counts every timer, unref'd ones too, as lanterna_debug_timers (an async hook: a call per async resource). */
    timerCensus: z.boolean().default(false),
  }).prefault({}),
  webRoot: z.string().optional(),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type GatewayConfig = z.infer<typeof configSchema>;
export type TargetConfig = z.infer<typeof targetSchema>;
export type DisplayConfig = GatewayConfig['displays'][number];
export type Credentials = z.infer<typeof credentials>;
