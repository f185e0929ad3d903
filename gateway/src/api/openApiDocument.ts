// The OpenAPI 3.1 document of the admin API, generated from the route table
// (adminRoutes.ts): paths, parameters, and request bodies as the JSON Schema
// of the very zod schemas that validate them (zod's toJSONSchema, draft
// 2020-12, which OpenAPI 3.1 uses). Served at /v1/openapi.json.
import { z } from 'zod';
import { adminRoutes, type AdminRoute } from './adminRoutes.js';

export const OPENAPI_PATH = '/v1/openapi.json';

const errorSchema = {
  type: 'object',
  required: ['code', 'message'],
  properties: { code: { type: 'string', description: 'a stable code' }, message: { type: 'string', description: 'words a person can act on' } },
};

/** A zod schema as JSON Schema, describing what a client sends (defaults optional). */
export function requestSchema(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

function pathParameters(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] ?? '');
}

function operation(route: AdminRoute): Record<string, unknown> {
  const parameters: Record<string, unknown>[] = pathParameters(route.path).map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
  if (route.query) {
    const query = requestSchema(route.query) as { properties?: Record<string, unknown>; required?: string[] };
    for (const [name, schema] of Object.entries(query.properties ?? {})) {
      parameters.push({ name, in: 'query', required: query.required?.includes(name) ?? false, schema });
    }
  }
  const responses: Record<string, unknown> = {};
  for (const [status, description] of Object.entries(route.responses)) {
    const failed = Number(status) >= 400;
    responses[status] = { description, content: { 'application/json': { schema: failed ? { $ref: '#/components/schemas/Error' } : {} } } };
  }
  responses['401'] = { description: 'no or a wrong admin token', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
  responses['429'] = { description: 'too many requests from this address (see Retry-After)', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
  responses['503'] = { description: 'the broker store is unreachable', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
  if (route.body) responses['400'] ??= { description: 'the body does not match the schema', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: requestSchema(route.body) } } } } : {}),
    responses,
  };
}

export function openApiDocument(routes: readonly AdminRoute[] = adminRoutes): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    paths[route.path] ??= {};
    (paths[route.path] as Record<string, unknown>)[route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Lanterna gateway admin API',
      version: '1',
      description: 'Displays, sessions, certificate pins and the audit log of a Lanterna gateway (or a farm sharing one broker store). '
        + 'Every call needs the admin token as a Bearer token; state-changing calls from a browser must come from the gateway\'s own pages.',
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    components: {
      securitySchemes: { adminToken: { type: 'http', scheme: 'bearer' } },
      schemas: { Error: errorSchema },
    },
    security: [{ adminToken: [] }],
    paths,
  };
}
