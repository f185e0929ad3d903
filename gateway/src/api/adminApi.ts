// The admin API's front door: rate limits, the admin token, the cross-origin
// guard, then the route table (adminRoutes.ts). An adapter over the broker:
// every decision is the broker's, and the API never reaches a socket.
//
// Why this is CSRF-safe: the API uses no cookies or other ambient
// credentials — every call carries `Authorization: Bearer <admin token>`, which
// a browser adds only when a script sets it, and a script on another origin
// cannot do that without a CORS preflight, which this gateway never grants.
// The admin page keeps the token in sessionStorage (per tab, gone with it)
// and sends it in that header. On top of that, state-changing calls whose
// `Origin` (or `Sec-Fetch-Site: cross-site`) says they come from another
// page are refused with 403. (The body's content type is not checked: older
// clients send JSON as text/plain, and a form post without the token is
// refused anyway.)
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { StoreUnavailableError } from '../broker/brokerStore.js';
import { bearerMatches, originAllowed } from './requestGuards.js';
import { RateLimiter, type BucketShape } from './rateLimiter.js';
import type { TokenGuesses } from '../broker/tokenGuesses.js';
import { adminRoutes, type AdminDeps, type AdminRoute } from './adminRoutes.js';
import { readJsonBody } from './jsonBody.js';

export type { AdminDeps } from './adminRoutes.js';

const MAX_BODY_BYTES = 16 * 1024;

export interface AdminLimits {
  /** Every admin request from one address (this process's share of the load; wrong tokens are the shared TokenGuesses'). */
  requests: BucketShape;
}

export const DEFAULT_ADMIN_LIMITS: AdminLimits = {
  requests: { capacity: 60, refillPerSecond: 20 },
};

interface CompiledRoute { route: AdminRoute; pattern: RegExp; names: string[] }

function compile(route: AdminRoute): CompiledRoute {
  const names: string[] = [];
  const source = route.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{([^}]+)\\?\}/g, (_match, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return { route, pattern: new RegExp(`^${source}$`), names };
}

function decodePathPart(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

function json(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
  response.end(body === undefined ? '' : JSON.stringify(body));
}

function readJson(request: IncomingMessage): Promise<unknown> {
  return readJsonBody(request, MAX_BODY_BYTES, (error) => `the body is not JSON: ${error.message}`);
}

export class AdminApi {
  private readonly routes = adminRoutes.map(compile);
  private readonly requests: RateLimiter;

  constructor(
    private readonly deps: AdminDeps,
    private readonly options: {
      allowedOrigins: readonly string[];
      /** Wrong or missing tokens, counted with every other token check (broker/tokenGuesses.ts). */
      guesses: TokenGuesses;
      limits?: AdminLimits;
      onError?: (error: unknown) => void;
      /** The client's address (a trusted proxy's X-Forwarded-For, else the peer's). */
      clientAddress?: (request: IncomingMessage) => string | undefined;
    },
  ) {
    const limits = options.limits ?? DEFAULT_ADMIN_LIMITS;
    this.requests = new RateLimiter(limits.requests, deps.clock);
  }

  /** The routes the router dispatches (the OpenAPI test compares them with the document). */
  get table(): readonly AdminRoute[] {
    return this.routes.map((compiled) => compiled.route);
  }

  /** Answers /v1/admin/… requests; false when the path is not one of them. */
  async handle(request: IncomingMessage, response: ServerResponse, url: URL): Promise<boolean> {
    const path = url.pathname;
    if (!path.startsWith('/v1/admin/')) return false;
    const address = (this.options.clientAddress ? this.options.clientAddress(request) : request.socket.remoteAddress) ?? 'unknown';
    const allowed = this.requests.take(address);
    const tooMany = (seconds: number): true => {
      json(response, 429, { code: 'rate-limited', message: `too many requests from ${address}: try again in ${seconds} s` }, { 'retry-after': String(seconds) });
      return true;
    };
    if (!allowed.ok) return tooMany(allowed.retryAfterSeconds);
    const right = bearerMatches(request, [this.deps.adminToken]);
    const verdict = await this.options.guesses.check(address, 'admin', right);
    if (!verdict.allowed) return tooMany(Math.max(1, Math.ceil(verdict.retryAfterMs / 1000)));
    if (!right) {
      json(response, 401, { code: 'unauthorized', message: 'an admin token is required' }, { 'www-authenticate': 'Bearer' });
      return true;
    }
    const method = request.method ?? 'GET';
    const changes = method !== 'GET' && method !== 'HEAD';
    if (changes && (!originAllowed(request, this.options.allowedOrigins) || request.headers['sec-fetch-site'] === 'cross-site')) {
      json(response, 403, { code: 'cross-origin', message: 'state-changing admin calls must come from the gateway\'s own pages' });
      return true;
    }
    const match = this.match(path, method);
    if (match === 'bad-encoding') {
      json(response, 400, { code: 'bad-request', message: `the path ${path} has a malformed percent-encoding` });
      return true;
    }
    if (match === 'wrong-method') {
      json(response, 405, { code: 'method-not-allowed', message: `${method} is not allowed on ${path}` });
      return true;
    }
    if (!match) {
      json(response, 404, { code: 'not-found', message: `no admin endpoint ${method} ${path}` });
      return true;
    }
    const { route, params } = match;
    let body: unknown;
    let query: unknown;
    try {
      if (route.body) body = route.body.parse(await readJson(request));
      if (route.query) query = route.query.parse(Object.fromEntries(url.searchParams));
    } catch (error) {
      const message = error instanceof z.ZodError ? z.prettifyError(error) : (error as Error).message;
      json(response, 400, { code: 'bad-request', message });
      return true;
    }
    try {
      const answer = await route.handle({ params, body, query, requester: { kind: 'admin', address }, deps: this.deps });
      json(response, answer.status, answer.body);
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      this.options.onError?.(error);
      json(response, 503, { code: 'store-unavailable', message: `the broker store is unreachable, so nothing can be changed now: ${error.message}` });
    }
    return true;
  }

  private match(path: string, method: string): { route: AdminRoute; params: Record<string, string> } | 'wrong-method' | 'bad-encoding' | undefined {
    let pathKnown = false;
    for (const { route, pattern, names } of this.routes) {
      const found = pattern.exec(path);
      if (!found) continue;
      pathKnown = true;
      if (route.method !== method) continue;
      const params: Record<string, string> = {};
      for (const [index, name] of names.entries()) {
        const decoded = decodePathPart(found[index + 1] ?? '');
        // A malformed percent-encoding is the client's mistake (400), not the gateway's (decodeURIComponent throws).
        if (decoded === undefined) return 'bad-encoding';
        params[name] = decoded;
      }
      return { route, params };
    }
    return pathKnown ? 'wrong-method' : undefined;
  }
}
