import { createServer as createHttpServer, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import cluster from 'node:cluster';
import type { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Logger } from 'pino';
import type { GatewayConfig } from './config/configSchema.js';
import type { GatewayIdentity } from './config/gatewayIdentity.js';
import { DisplayDirectory } from './broker/displayDirectory.js';
import { composeBroker } from './broker/brokerParts.js';
import type { BrokerStore } from './broker/brokerStore.js';
import { MemoryBrokerStore } from './broker/memoryBrokerStore.js';
import { resolveHost, type LookupAll } from './connect/hostResolver.js';
import { SessionTokenSigner } from './session/sessionToken.js';
import { TargetPolicy } from './policy/targetPolicy.js';
import { CertificatePolicy } from './policy/certificatePolicy.js';
import { FilePinStore, pinFile, type PinStore } from './policy/pinStore.js';
import { SealedBox } from './session/sealedBox.js';
import { RoomRequests } from './broker/roomRequests.js';
import type { GatewayBus } from './cluster/gatewayBus.js';
import type { GatewayMetrics } from './metrics/gatewayMetrics.js';
import { ControlChannels } from './channel/controlChannel.js';
import { capUnread } from './channel/unreadCap.js';
import { boundCloseHandshake } from './channel/closeDeadline.js';
import { AdminApi } from './api/adminApi.js';
import { OPENAPI_PATH, openApiDocument } from './api/openApiDocument.js';
import { handlePresenter } from './api/presenterApi.js';
import { LaserFeed } from './api/laserFeed.js';
import { handleInk } from './api/inkApi.js';
import { TrustedProxies } from './api/trustedProxies.js';
import { RequestRateLimiter } from './api/requestRateLimiter.js';
import { RoomPins } from './broker/roomPins.js';
import { TokenGuesses } from './broker/tokenGuesses.js';
import { StopTokens } from './broker/stopTokens.js';
import { PresenterProjections } from './broker/presenterProjections.js';
import { RoomAnnouncer } from './channel/roomAnnouncer.js';
import { serveStatic } from './api/staticFiles.js';
import { HostGuard, bearerMatches, originAllowed } from './api/requestGuards.js';
import { ConnectionLimits } from './api/connectionLimits.js';
import { closeWithError } from './channel/closeWithError.js';
import { SessionError } from './session/sessionError.js';
import { handleWsdRequest, type WsdHttpDeps } from './wsd/wsdHttpEndpoint.js';
import { deviceSeedOf, readDeviceSeed } from './wsd/wsdIdentity.js';
import type { RelayEngine } from './dataplane/relayEngine.js';
import { createDataEngine, type SocketRoute } from './engine/dataEngine.js';
import { KIOSK_SUBPROTOCOL, MAX_JSON_FRAME_BYTES, presenterSocketPath } from '@lanterna/protocol';

const CONTROL_MAX_PAYLOAD = MAX_JSON_FRAME_BYTES;
const CLOSE_GRACE_MS = 2000;

export interface GatewayServerDeps {
  config: GatewayConfig & { stateDir: string };
  identity: GatewayIdentity;
  bus: GatewayBus;
  metrics: GatewayMetrics;
  logger: Logger;
  /** Prometheus text for /metrics: the process's own, or the cluster's aggregate. */
  metricsText?: () => Promise<string>;
  /** The broker's state: this process's memory by default; see brokerBackend.ts for the others. */
  store?: BrokerStore;
  /** Certificate pins: the state directory's file by default, Redis for a farm. */
  pins?: PinStore;
  /** Why the broker's state cannot be used now (/readyz answers 503 with it), or undefined. */
  storeProblem?: () => string | undefined;
  /** The name resolver for targets (the system's by default). */
  lookup?: LookupAll;
  /** This gateway instance's tag: the presences its workers record name it (broker/presenceOwner.ts). */
  instanceTag?: string | undefined;
  /**
   * The native engine: the data plane exited while the gateway ran (its
   * sessions are gone). By default the process exits 1 after logging it (the
   * cluster primary or the container starts another).
   */
  onDataPlaneExit?: ((error: Error) => void) | undefined;
  /** The data plane's binary (the native engine); by default dataplane/dataPlaneProcess.ts's. */
  dataPlaneBinary?: string | undefined;
}

export interface GatewayServer {
  server: Server;
  /** The engine that carries the data sockets (relay.engine "auto" resolved). */
  relayEngine: RelayEngine;
  listen(): Promise<number>;
  /** Stop accepting, let sessions finish up to drainMs, then close everything. */
  close(drainMs: number): Promise<void>;
}

const securityHeaders = {
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-embedder-policy': 'require-corp',
  'cross-origin-resource-policy': 'same-origin',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  // Our pages load only our own files; wasm needs 'wasm-unsafe-eval', the
  // emscripten thread pool may start workers from blobs, and no one frames us.
  'content-security-policy': [
    "default-src 'self'", "script-src 'self' 'wasm-unsafe-eval'", "worker-src 'self' blob:", "connect-src 'self'",
    "img-src 'self' data: blob:", "style-src 'self'", "object-src 'none'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
  ].join('; '),
  'x-frame-options': 'DENY',
};

let version: string | undefined;
function gatewayVersion(): string {
  version ??= (JSON.parse(readFileSync(join(fileURLToPath(new URL('.', import.meta.url)), '..', 'package.json'), 'utf8')) as { version: string }).version;
  return version;
}

export function defaultWebRoot(): string {
  return join(fileURLToPath(new URL('.', import.meta.url)), '..', '..', 'web', 'dist', 'public');
}

export function createGatewayServer(deps: GatewayServerDeps): GatewayServer {
  const { config, identity, bus, metrics, logger } = deps;
  const policy = new TargetPolicy({ ...config.policy, ownPorts: [config.listen.port] });
  const pins = deps.pins ?? new FilePinStore(pinFile(config.stateDir));
  const ca = config.certificates.caFile ? readFileSync(config.certificates.caFile, 'utf8') : undefined;
  const { lookup } = deps;
  const store = deps.store ?? new MemoryBrokerStore();
  // The broker's parts (broker/brokerParts.ts): each adapter below is handed the ones its deps name, no more.
  const broker = composeBroker({
    directory: new DisplayDirectory(config.displays),
    store,
    signer: new SessionTokenSigner(identity.sessionSecret),
    sealer: new SealedBox(identity.sessionSecret),
    policy,
    resolveTarget: (host) => resolveHost(host, { deadlineMs: config.timeouts.dnsMs, lookup }),
    publish: (event) => bus.publish(event),
    timeouts: { ...config.timeouts, resumeGraceMs: config.broker.resumeGraceMs },
    instanceTag: deps.instanceTag,
  });
  broker.displays.seedDisplays().catch((error: unknown) => logger.error({ err: error, event: 'seed-failed' }, 'configured displays not yet in the broker store: tried again on first use'));
  const certificates = new CertificatePolicy(config.certificates.mode, config.certificates.pins, pins,
    (error) => logger.error({ event: 'pin-store-failed', err: error }, 'certificate pins unusable: every first-use session is refused'),
    (changes) => {
      logger.warn({ event: 'pin-changed', changes }, "a presenter's certificate changed since it was pinned");
      broker.pinConflicts.changed(changes.map((change) => ({ ...change, at: Date.now() }))).catch((error: unknown) => logger.warn({ err: error }, 'the changed pin could not be recorded'));
    });
  // Every token a client shows is checked under one budget per address and IPv6 /64, shared through the store.
  const guesses = new TokenGuesses(store, config.tokenGuesses, Date.now, (check) => metrics.tokenChecksRefused.inc({ check }));
  const hosts = new HostGuard(config.listen.allowedHosts);
  const limits = new ConnectionLimits(config.limits);
  // A socket's token was accepted: the listener's pending budget lets it go.
  const onAuthenticated = (ws: WebSocket): void => limits.authenticated(ws);
  let draining = false;
  // One engine carries the data sockets: this process's, or the data plane's with the decisions made here.
  const engine = createDataEngine({
    config, tls: identity.tls, ca, sessions: broker.sessions, policy, certificates, bus, metrics, logger, lookup, guesses, hosts,
    onAuthenticated, draining: () => draining,
    dataPlaneBinary: deps.dataPlaneBinary, onDataPlaneExit: deps.onDataPlaneExit,
  });
  // An engine that owns the port passes every request on over our Unix socket, naming its peer last.
  const proxies = new TrustedProxies(config.listen.trustedProxies, { localProxy: !engine.ownsPort });
  const clientAddress = (request: IncomingMessage): string | undefined => proxies.clientAddress(request);
  const roomRequests = new RoomRequests({ ...broker, store, sealer: new SealedBox(identity.sessionSecret, 'room request'), publish: (event) => bus.publish(event) });
  const admin = new AdminApi({ adminToken: identity.adminToken, ...broker, pins, rooms: roomRequests }, {
    allowedOrigins: config.listen.allowedOrigins,
    clientAddress,
    guesses,
    limits: {
      requests: { capacity: config.admin.burst, refillPerSecond: config.admin.requestsPerSecond },
    },
    onError: (error) => logger.warn({ err: error, event: 'admin-store-unavailable' }, 'admin call refused: broker store unreachable'),
  });
  const openApi = JSON.stringify(openApiDocument());
  const roomPins = new RoomPins({ store, settings: config.roomPin, limits: config.roomPin, publish: (event) => bus.publish(event) });
  // Both engines join a presenter page's socket to its display's session; across a cluster's workers only the native data planes do (docs/browser-presenter.md).
  const browserSource = cluster.isWorker && !engine.joinsAcrossWorkers
    ? 'a presenter page and its display may reach different workers of this gateway: run it with workers: 1 or the native relay engine for that' : true;
  const presenters = new PresenterProjections({ ...broker, store, pins: roomPins, stopTokens: new StopTokens(identity.sessionSecret), browserSource, rooms: roomRequests });
  const presenterLimiter = new RequestRateLimiter(config.presenter.requestsPerMinute);
  const presenterUrl = (displayId: string, host: string | undefined): string => {
    const url = new URL(config.presenter.url ?? `${config.listen.tls ? 'https' : 'http'}://${host ?? `localhost:${config.listen.port}`}/present`);
    url.searchParams.set('display', displayId);
    return url.href;
  };
  const presenterSocketUrl = (sessionId: string, host: string | undefined): string =>
    `${config.listen.tls ? 'wss' : 'ws'}://${host ?? `localhost:${config.listen.port}`}${presenterSocketPath(sessionId)}`;
  const rooms = { announcer: new RoomAnnouncer({ pins: roomPins, logger }), presenterUrl };
  const laser = new LaserFeed(bus);
  const control = new ControlChannels({ config, ...broker, bus, metrics, logger, rooms, guesses, onAuthenticated, roomView: (displayId) => roomRequests.view(displayId) });
  const webRoot = config.webRoot ?? defaultWebRoot();
  let deviceSeed: string | undefined;
  const wsd: WsdHttpDeps | undefined = config.wsd.enabled ? {
    ...broker, presenters, clientAddress, tls: config.listen.tls, metrics, version: gatewayVersion(),
    deviceSeed: () => (deviceSeed ??= deviceSeedOf(config.broker.store === 'redis', identity.sessionSecret, () => readDeviceSeed(config.stateDir))),
  } : undefined;

  const socketServer = (maxPayload: number): WebSocketServer => new WebSocketServer({
    noServer: true,
    perMessageDeflate: false, // RDP payloads are compressed already
    maxPayload,
    // A client that offers subprotocols must offer ours; one that offers none is served (plain clients).
    handleProtocols: (offered) => (offered.has(KIOSK_SUBPROTOCOL) ? KIOSK_SUBPROTOCOL : false),
  });
  // Control messages are small; a large one is a misbehaving client.
  const controlSockets = socketServer(CONTROL_MAX_PAYLOAD);
  // Until a data socket has authenticated it carries only JSON: the RDP frame
  // size (relay.maxFrameBytes) is granted after `open` (channel/frameLimit.ts);
  // presenter sockets likewise, after `present` is accepted.
  const engineSockets = socketServer(MAX_JSON_FRAME_BYTES);

  async function onRequest(request: IncomingMessage, response: ServerResponse): Promise<void> {
    for (const [name, value] of Object.entries(securityHeaders)) response.setHeader(name, value);
    if (config.listen.tls) response.setHeader('strict-transport-security', 'max-age=31536000');
    if (!hosts.allows(request.headers.host)) return plain(response, 421, 'unknown host name: add it to listen.allowedHosts\n');
    const url = new URL(request.url ?? '/', 'http://gateway');
    const path = url.pathname;
    if (path === '/healthz') return plain(response, 200, 'ok\n');
    if (path === '/readyz') {
      if (draining) return plain(response, 503, 'draining\n');
      const problem = deps.storeProblem?.();
      return problem ? plain(response, 503, `not ready: ${problem}\n`) : plain(response, 200, 'ready\n');
    }
    if (path === OPENAPI_PATH) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(openApi);
      return;
    }
    if (path === '/metrics') {
      // Session counts, bytes and errors describe who uses which room: not for anyone on the LAN.
      // Its check takes the admin token too, so it counts under the token-guess limits like the admin API's.
      const right = bearerMatches(request, [identity.adminToken, config.metricsToken]);
      const verdict = await guesses.check(clientAddress(request), 'metrics', right);
      if (!verdict.allowed) {
        response.setHeader('retry-after', String(Math.max(1, Math.ceil(verdict.retryAfterMs / 1000))));
        return plain(response, 429, 'too many wrong tokens from this address: try again later\n');
      }
      if (!right) {
        response.setHeader('www-authenticate', 'Bearer');
        return plain(response, 401, 'a metrics or admin token is required\n');
      }
      response.writeHead(200, { 'content-type': metrics.registry.contentType });
      response.end(await (deps.metricsText?.() ?? metrics.registry.metrics()));
      return;
    }
    if (wsd && await handleWsdRequest(wsd, request, response, path)) return;
    if (await admin.handle(request, response, url)) return;
    if (await handleInk({ settings: config.ink, store, displays: broker.displays, presenters, pins: roomPins, guesses, limiter: presenterLimiter, logger, clientAddress }, request, response, path)) return;
    if (await handlePresenter({ presenters, rooms: roomRequests, adminToken: identity.adminToken, guesses, limiter: presenterLimiter, allowedOrigins: config.listen.allowedOrigins, logger, clientAddress, presenterSocketUrl, laser }, request, response, path)) return;
    if (request.method !== 'GET' && request.method !== 'HEAD') return plain(response, 405, 'method not allowed\n');
    const page = /^\/display\/[A-Za-z0-9._-]{1,64}\/?$/.test(path) ? '/display.html' : /^\/admin\/?$/.test(path) ? '/admin.html' : /^\/present\/?$/.test(path) ? '/present.html' : path;
    if (await serveStatic(webRoot, page, request, response)) return;
    plain(response, 404, 'not found\n');
  }

  function onUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    // Node's HTTP server lets go of an upgraded socket, error listener included:
    // without our own, a client's reset at any point after this is an uncaught
    // ECONNRESET that ends the worker and every session on it.
    socket.on('error', (error) => logger.debug({ err: error, event: 'upgrade-socket-error' }, 'upgrade socket error'));
    const path = new URL(request.url ?? '/', 'http://gateway').pathname;
    const controlMatch = /^\/v1\/displays\/([A-Za-z0-9._-]{1,64})\/control$/.exec(path);
    const engineMatch = controlMatch ? undefined : routeOf(engine.routes, path);
    if (!hosts.allows(request.headers.host)) {
      refuseUpgrade(socket, '421 Misdirected Request');
      return;
    }
    if (!originAllowed(request, config.listen.allowedOrigins)) {
      logger.info({ event: 'origin-refused', origin: request.headers.origin }, 'websocket from a foreign page refused');
      refuseUpgrade(socket, '403 Forbidden');
      return;
    }
    if (draining || (!controlMatch && !engineMatch)) {
      refuseUpgrade(socket, draining ? '503 Service Unavailable' : '404 Not Found');
      return;
    }
    const target = controlMatch ? controlSockets : engineSockets;
    const address = clientAddress(request);
    target.handleUpgrade(request, socket, head, (ws: WebSocket) => {
      // No upgrade is refused for want of a place: a stranger's oldest pending socket gives its place up (api/pendingSockets.ts).
      const evicted = limits.addPending(ws, address);
      if (evicted) {
        metrics.pendingSocketsEvicted.inc();
        logger.info({ event: 'pending-socket-evicted', address, pending: limits.pendingCount }, 'an unauthenticated websocket gave its place to a newer one');
        closeWithError(evicted, new SessionError(controlSockets.clients.has(evicted) ? 'hello' : 'open', 'gateway-busy', 'crowded out: the gateway made room for a newer connection', { reason: 'crowded-out' }));
      }
      ws.on('error', (error) => logger.debug({ err: error }, 'websocket error'));
      boundCloseHandshake(ws, config.timeouts.writeMs);
      capUnread(ws, config.relay.maxBacklogBytes, (unreadBytes) => logger.warn({ event: 'peer-not-reading', unreadBytes, path: request.url }, 'a websocket peer stopped reading: cut'));
      if (controlMatch?.[1]) void control.handle(ws, controlMatch[1], request.headers.host, address);
      else if (engineMatch) engineMatch.route.handle(ws, engineMatch.id, address);
    });
  }

  // One number for both engines' front doors (the data plane's gets it with configure).
  const maxHeaderSize = config.limits.maxHeaderBytes;
  // Node looks for requests past their deadlines only this often (30 s by default).
  const connectionsCheckingInterval = Math.min(1000, Math.floor(config.timeouts.httpHeadersMs / 2));
  const server = config.listen.tls && engine.ownsPort
    ? createHttpsServer({ cert: identity.tls.cert, key: identity.tls.key, handshakeTimeout: config.timeouts.tlsHandshakeMs, connectionsCheckingInterval, maxHeaderSize })
    : createHttpServer({ connectionsCheckingInterval, maxHeaderSize });
  server.maxConnections = config.limits.maxConnections;
  server.on('connection', (socket: Socket) => {
    if (limits.admitConnection(socket)) return;
    logger.warn({ event: 'address-connections-full', address: socket.remoteAddress }, 'too many connections from one address or IPv6 /64: dropped');
    socket.destroy();
  });
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    onRequest(request, response).catch((error: unknown) => {
      logger.error({ err: error }, 'request failed');
      if (!response.headersSent) plain(response, 500, 'internal error\n');
      else response.destroy();
    });
  });
  server.on('upgrade', onUpgrade);
  // Slowloris: a request (an upgrade included) must finish its headers, and itself, in time.
  server.headersTimeout = config.timeouts.httpHeadersMs;
  server.requestTimeout = config.timeouts.httpRequestMs;

  return {
    relayEngine: engine.name,
    server,
    listen: () => engine.listen(server),
    close: async (drainMs) => {
      draining = true;
      await engine.drain(server, drainMs);
      control.closeAll(1001, 'gateway-shutdown');
      // Give close frames a moment to reach the kiosks before cutting what is left.
      const open = [...controlSockets.clients, ...engineSockets.clients];
      await Promise.race([
        Promise.all(open.map((client) => new Promise((resolve) => { if (client.readyState === client.CLOSED) resolve(null); else client.once('close', resolve); }))),
        new Promise((resolve) => setTimeout(resolve, CLOSE_GRACE_MS)),
      ]);
      for (const client of open) client.terminate();
      await engine.stop(server);
      server.closeAllConnections();
    },
  };
}

/** The engine's route for an upgrade's path, and the id its pattern names. */
function routeOf(routes: readonly SocketRoute[], path: string): { route: SocketRoute; id: string } | undefined {
  for (const route of routes) {
    const id = route.path.exec(path)?.[1];
    if (id !== undefined) return { route, id };
  }
  return undefined;
}

/** Answers a refused upgrade if the client is still there, then lets the socket go. */
function refuseUpgrade(socket: Duplex, status: string): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
}

function plain(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  response.end(text);
}
