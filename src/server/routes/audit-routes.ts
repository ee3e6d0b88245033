import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { type ApiCatalog, apiRoute } from '../api-route.ts';
import type { AuditFilter, AuditReader, AuditVerifier } from '../audit-reader.ts';
import { ServerErrors } from '../server-errors.ts';

const iso = z.iso.datetime({ offset: true });
const auditQuery = z.object({
  session: z.string().max(100).optional(),
  user: z.string().max(64).optional().describe('Actor username'),
  type: z.string().max(100).optional().describe('Event type, e.g. proposed, approved, executed'),
  from: iso.optional(),
  to: iso.optional(),
  after: z.coerce.number().int().min(0).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
});

function toFilter(query: z.infer<typeof auditQuery>): AuditFilter {
  return {
    ...(query.session ? { sessionId: query.session } : {}),
    ...(query.user ? { user: query.user } : {}),
    ...(query.type ? { type: query.type } : {}),
    ...(query.from ? { from: new Date(query.from).toISOString() } : {}),
    ...(query.to ? { to: new Date(query.to).toISOString() } : {}),
    ...(query.after !== undefined ? { afterSeq: query.after } : {}),
    ...(query.limit ? { limit: query.limit } : {}),
  };
}

/** Audit log: filtered list, chain status, JSON Lines export. People see their own sessions; approvers and admins all. */
export function auditRoutes(app: FastifyInstance, catalog: ApiCatalog, deps: { reader: AuditReader; verify?: AuditVerifier }): void {
  apiRoute(
    app,
    catalog,
    {
      method: 'GET',
      path: '/api/audit',
      summary: 'Audit events, filtered by session, user, type and time.',
      tag: 'audit',
      query: auditQuery,
    },
    async ({ query, request }) => ({
      events: await deps.reader.list(request.identity, toFilter(query)),
    }),
  );
  apiRoute(
    app,
    catalog,
    { method: 'GET', path: '/api/audit/verify', summary: 'Verify the hash chain of the whole audit log.', tag: 'audit' },
    async () => {
      if (!deps.verify) throw ServerErrors.AUDIT_UNAVAILABLE();
      return deps.verify();
    },
  );
  apiRoute(
    app,
    catalog,
    {
      method: 'GET',
      path: '/api/audit/export',
      summary: 'The visible audit events as JSON Lines (application/x-ndjson).',
      tag: 'audit',
      query: auditQuery,
    },
    async ({ query, request, reply }) => {
      void reply
        .type('application/x-ndjson; charset=utf-8')
        .header('content-disposition', `attachment; filename="opsgate-audit-${new Date().toISOString().slice(0, 10)}.jsonl"`);
      return Readable.from(deps.reader.jsonLines(request.identity, toFilter(query)));
    },
  );
}
