import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Runtime } from '../../core/runtime/runtime-api.ts';
import { type ApiCatalog, apiRoute } from '../api-route.ts';

const sessionParams = z.object({ sessionId: z.string().min(1).max(100).describe('Session id (uuid)') });

/** What a session's model steps used: tokens and cost per turn, and in all. */
export function usageRoute(app: FastifyInstance, catalog: ApiCatalog, runtime: Runtime): void {
  apiRoute(
    app,
    catalog,
    {
      method: 'GET',
      path: '/api/sessions/:sessionId/usage',
      summary: 'Model tokens and cost of a session, per turn (cost null when the model has no known price).',
      tag: 'sessions',
      params: sessionParams,
    },
    async ({ params, request }) => runtime.sessionUsage(params.sessionId, request.identity),
  );
}
