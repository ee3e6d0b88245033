import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { parseInput } from './parse-input.ts';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** One documented endpoint: its zod schemas are both the validation and the OpenAPI text. */
export interface ApiRouteSpec<P, Q, B> {
  readonly method: Method;
  /** Fastify path, e.g. `/api/sessions/:sessionId`. */
  readonly path: string;
  readonly summary: string;
  readonly tag: string;
  /** False for the few public routes (login, health). Default true. */
  readonly auth?: boolean;
  readonly params?: z.ZodType<P>;
  readonly query?: z.ZodType<Q>;
  readonly body?: z.ZodType<B>;
  /** Response body schema (documentation only). */
  readonly response?: z.ZodType;
  /** Extra Fastify route options (rate limits). */
  readonly config?: Record<string, unknown>;
}

export interface ApiInput<P, Q, B> {
  readonly params: P;
  readonly query: Q;
  readonly body: B;
  readonly request: FastifyRequest;
  readonly reply: FastifyReply;
}

/** Every route registered through `apiRoute`, for the OpenAPI document. */
export class ApiCatalog {
  readonly routes: Array<ApiRouteSpec<unknown, unknown, unknown>> = [];
}

/** Registers a route whose params, query and body are parsed with zod before the handler runs. */
export function apiRoute<P = Record<string, never>, Q = Record<string, never>, B = undefined>(
  app: FastifyInstance,
  catalog: ApiCatalog,
  spec: ApiRouteSpec<P, Q, B>,
  handler: (input: ApiInput<P, Q, B>) => Promise<unknown>,
): void {
  catalog.routes.push(spec as ApiRouteSpec<unknown, unknown, unknown>);
  app.route({
    method: spec.method,
    url: spec.path,
    ...(spec.config ? { config: spec.config } : {}),
    handler: async (request, reply) => {
      const params = spec.params ? parseInput(spec.params, request.params, 'params') : ({} as P);
      const query = spec.query ? parseInput(spec.query, request.query, 'query') : ({} as Q);
      const body = spec.body ? parseInput(spec.body, request.body, 'body') : (undefined as B);
      return handler({ params, query, body, request, reply });
    },
  });
}

function schemaOf(schema: z.ZodType | undefined, io: 'input' | 'output'): Record<string, unknown> | undefined {
  if (!schema) return undefined;
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

function parametersOf(schema: z.ZodType | undefined, location: 'path' | 'query'): Array<Record<string, unknown>> {
  const json = schemaOf(schema, 'input');
  const properties = (json?.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set((json?.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: location,
    required: location === 'path' || required.has(name),
    ...(property.description ? { description: property.description } : {}),
    schema: property,
  }));
}

const errorSchema = {
  type: 'object',
  required: ['code', 'message'],
  properties: { code: { type: 'string' }, message: { type: 'string' } },
};

/** OpenAPI 3.1 from the catalog (zod 4 `z.toJSONSchema`). */
export function openApiDocument(catalog: ApiCatalog, info: { title: string; version: string }): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of catalog.routes) {
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    const operation: Record<string, unknown> = {
      summary: route.summary,
      tags: [route.tag],
      parameters: [...parametersOf(route.params, 'path'), ...parametersOf(route.query, 'query')],
      responses: {
        '200': {
          description: 'OK',
          ...(route.response ? { content: { 'application/json': { schema: schemaOf(route.response, 'output') } } } : {}),
        },
        default: {
          description: 'An error: a stable code and what to do next',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
      },
      ...(route.auth === false ? { security: [] } : {}),
    };
    if (route.body) operation.requestBody = { required: true, content: { 'application/json': { schema: schemaOf(route.body, 'input') } } };
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation };
  }
  return {
    openapi: '3.1.0',
    info: {
      ...info,
      description:
        'The opsgate API. Authenticate with POST /api/login (session cookie; writes then need the X-CSRF-Token header from the login answer) or an API token as "Authorization: Bearer ogt_…". Live events: WebSocket /api/sessions/{sessionId}/socket?after=N.',
    },
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer' },
        cookie: { type: 'apiKey', in: 'cookie', name: 'opsgate_session' },
      },
      schemas: { Error: errorSchema },
    },
    security: [{ bearer: [] }, { cookie: [] }],
    paths,
  };
}
