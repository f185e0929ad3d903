import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { targetSchema } from '../config/configSchema.js';
import { bearerMatches } from './requestGuards.js';
import type { SessionBroker, ProjectionRefusal } from '../broker/sessionBroker.js';
import { sessionSettingsSchema } from '@lanterna/protocol';
import { MAX_INVITATION_CHARS } from '../assistance/raInvitation.js';

const MAX_BODY_BYTES = 16 * 1024;

const projectBody = z.object({
  displayId: z.string(),
  target: targetSchema.optional(),
  credentials: z.object({ username: z.string().min(1), password: z.string(), domain: z.string().optional() }).optional(),
  /** A Remote Assistance invitation instead of a target: the gateway picks the first address its policy allows. */
  assistance: z.object({ invitation: z.string().min(1).max(MAX_INVITATION_CHARS), password: z.string().max(256) }).optional(),
  settings: z.optional(sessionSettingsSchema),
}).refine((body) => (body.target === undefined) !== (body.assistance === undefined), 'give either target or assistance, not both');

/** The admin API is an adapter over the broker: every decision is the broker's. */
export interface AdminDeps {
  adminToken: string;
  broker: SessionBroker;
}

const refusalStatus: Record<ProjectionRefusal, number> = {
  'unknown-display': 404,
  'display-offline': 409,
  'display-busy': 409,
  'target-forbidden': 403,
  'invitation-too-large': 400,
  'invitation-markup': 400,
  'invitation-malformed': 400,
  'invitation-password': 400,
};

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

function authorised(request: IncomingMessage, token: string): boolean {
  return bearerMatches(request, [token]);
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new Error(`body larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
}

/** Admin endpoints under /v1/admin; returns false when the path is not one of them. */
export async function handleAdmin(deps: AdminDeps, request: IncomingMessage, response: ServerResponse, path: string): Promise<boolean> {
  if (!path.startsWith('/v1/admin/')) return false;
  if (!authorised(request, deps.adminToken)) {
    response.setHeader('www-authenticate', 'Bearer');
    json(response, 401, { code: 'unauthorized', message: 'an admin token is required' });
    return true;
  }
  if (path === '/v1/admin/displays' && request.method === 'GET') {
    json(response, 200, { displays: await deps.broker.listDisplays() });
    return true;
  }
  if (path === '/v1/admin/sessions' && request.method === 'GET') {
    json(response, 200, { sessions: await deps.broker.listSessions() });
    return true;
  }
  if (path === '/v1/admin/sessions' && request.method === 'POST') {
    let body: z.infer<typeof projectBody>;
    try {
      body = projectBody.parse(await readBody(request));
    } catch (error) {
      json(response, 400, { code: 'bad-request', message: error instanceof z.ZodError ? z.prettifyError(error) : (error as Error).message });
      return true;
    }
    const outcome = await deps.broker.requestProjection(body);
    if (!outcome.ok) {
      json(response, refusalStatus[outcome.code], { code: outcome.code, message: outcome.reason });
      return true;
    }
    json(response, 202, { sessionId: outcome.sessionId, displayId: body.displayId, target: outcome.target });
    return true;
  }
  const stop = /^\/v1\/admin\/displays\/([^/]+)\/sessions\/([^/]+)$/.exec(path);
  if (stop && request.method === 'DELETE') {
    const displayId = pathSegment(stop[1]);
    const sessionId = pathSegment(stop[2]);
    if (displayId === undefined || sessionId === undefined) {
      json(response, 400, { code: 'bad-request', message: 'a path segment is not valid percent-encoding' });
      return true;
    }
    deps.broker.stopSession(displayId, sessionId, 'stopped by an administrator');
    json(response, 202, { stopping: true });
    return true;
  }
  json(response, 404, { code: 'not-found', message: `no admin endpoint ${request.method ?? ''} ${path}` });
  return true;
}

/** A decoded path segment, or undefined when its percent-encoding is malformed (`%zz`): a 400, not a 500. */
function pathSegment(raw: string | undefined): string | undefined {
  try {
    return decodeURIComponent(raw ?? '');
  } catch {
    return undefined;
  }
}
