import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { targetSchema } from '../config/configSchema.js';
import { bearerMatches } from './requestGuards.js';
import type { DisplayDirectory } from '../session/displayDirectory.js';
import type { ControlChannels } from '../channel/controlChannel.js';
import type { GatewayBus } from '../cluster/gatewayBus.js';
import type { TargetPolicy } from '../policy/targetPolicy.js';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { sessionSettingsSchema } from '@lanterna/protocol';
import { InvitationError, MAX_INVITATION_CHARS, readInvitation } from '../assistance/raInvitation.js';

const MAX_BODY_BYTES = 16 * 1024;

const projectBody = z.object({
  displayId: z.string(),
  target: targetSchema.optional(),
  credentials: z.object({ username: z.string().min(1), password: z.string(), domain: z.string().optional() }).optional(),
  /** A Remote Assistance invitation instead of a target: the gateway picks the first address its policy allows. */
  assistance: z.object({ invitation: z.string().min(1).max(MAX_INVITATION_CHARS), password: z.string().max(256) }).optional(),
  settings: z.optional(sessionSettingsSchema),
}).refine((body) => (body.target === undefined) !== (body.assistance === undefined), 'give either target or assistance, not both');

export interface AdminDeps {
  adminToken: string;
  directory: DisplayDirectory;
  control: ControlChannels;
  bus: GatewayBus;
  policy: TargetPolicy;
}

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
    json(response, 200, { displays: deps.directory.list().map((d) => ({ id: d.id, name: d.name ?? d.id, onlineHere: deps.control.isOnline(d.id) })) });
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
    if (!deps.directory.get(body.displayId)) {
      json(response, 404, { code: 'unknown-display', message: `no display "${body.displayId}"` });
      return true;
    }
    const chosen = body.assistance ? await chooseInvitationTarget(deps.policy, body.assistance) : await checkTarget(deps.policy, body.target?.host ?? '', body.target?.port ?? 0);
    if (!chosen.allowed) {
      json(response, chosen.status ?? 403, { code: chosen.code ?? 'target-forbidden', message: chosen.reason });
      return true;
    }
    const target = body.target ?? chosen.target;
    if (!target) throw new Error('no target chosen');
    const sessionId = deps.control.project({ displayId: body.displayId, target, credentials: body.credentials, settings: body.settings, assistance: body.assistance });
    json(response, 202, { sessionId, displayId: body.displayId, target: { host: target.host, port: target.port } });
    return true;
  }
  const stop = /^\/v1\/admin\/displays\/([^/]+)\/sessions\/([^/]+)$/.exec(path);
  if (stop && request.method === 'DELETE') {
    deps.bus.publish({ kind: 'stop-session', displayId: decodeURIComponent(stop[1] ?? ''), sessionId: decodeURIComponent(stop[2] ?? ''), reason: 'stopped by an administrator' });
    json(response, 202, { stopping: true });
    return true;
  }
  json(response, 404, { code: 'not-found', message: `no admin endpoint ${request.method ?? ''} ${path}` });
  return true;
}

type TargetChoice =
  | { allowed: true; target?: { host: string; port: number } }
  | { allowed: false; reason: string; status?: number; code?: string };

/**
 * No open relay through invitations either: every address the invitation names
 * goes through the same policy as a plain target, in the invitation's order,
 * and the first one allowed is the target. None allowed: refused, naming why.
 */
async function chooseInvitationTarget(policy: TargetPolicy, assistance: { invitation: string; password: string }): Promise<TargetChoice> {
  let addresses;
  try {
    ({ addresses } = readInvitation(assistance.invitation, assistance.password));
  } catch (error) {
    if (error instanceof InvitationError) return { allowed: false, status: 400, code: error.code, reason: error.message };
    throw error;
  }
  const refusals: string[] = [];
  for (const address of addresses) {
    const verdict = await checkTarget(policy, address.host, address.port);
    if (verdict.allowed) return { allowed: true, target: { host: address.host, port: address.port } };
    refusals.push(verdict.reason);
  }
  return { allowed: false, reason: `no address in the invitation is allowed: ${refusals.join('; ')}` };
}

async function checkTarget(policy: TargetPolicy, host: string, port: number): Promise<TargetChoice> {
  let addresses = [host];
  if (isIP(host) === 0) {
    try {
      addresses = (await lookup(host, { all: true })).map((entry) => entry.address);
    } catch {
      return { allowed: false, reason: `the name "${host}" does not resolve` };
    }
  }
  const verdicts = addresses.map((address) => policy.check(address, port));
  return verdicts.find((v) => v.allowed) ?? verdicts[0] ?? { allowed: false, reason: 'no address' };
}
