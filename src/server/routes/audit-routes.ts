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
  tool: z.string().max(100).optional().describe('Events about this tool, e.g. commit_transaction'),
  target: z.string().max(200).optional().describe('Events whose details mention this text: a host, release, access or table'),
  order: z.enum(['asc', 'desc']).optional().describe('asc: oldest first (default); desc: newest first'),
  after: z.coerce.number().int().min(0).optional(),
  before: z.coerce.number().int().min(1).optional().describe('Events with a lower seq: the next page when reading newest first'),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
});

function toFilter(query: z.infer<typeof auditQuery>): AuditFilter {
  return {
    ...(query.session ? { sessionId: query.session } : {}),
    ...(query.user ? { user: query.user } : {}),
    ...(query.type ? { type: query.type } : {}),
    ...(query.from ? { from: new Date(query.from).toISOString() } : {}),
    ...(query.to ? { to: new Date(query.to).toISOString() } : {}),
    ...(query.tool ? { tool: query.tool } : {}),
    ...(query.target ? { target: query.target } : {}),
    ...(query.order ? { order: query.order } : {}),
    ...(query.after !== undefined ? { afterSeq: query.after } : {}),
    ...(query.before !== undefined ? { beforeSeq: query.before } : {}),
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
      summary:
        'Audit events, filtered by session, user, type, tool, target and time; `hasMore` says another page exists (ask again with `after` or, newest first, `before`).',
      tag: 'audit',
      query: auditQuery,
    },
    async ({ query, request }) => {
      const filter = toFilter(query);
      const events = await deps.reader.list(request.identity, filter);
      const last = events.at(-1);
      // A full page may have a next one: one more event past its end says so, without counting the whole log.
      const hasMore =
        last !== undefined &&
        events.length === (query.limit ?? 200) &&
        (
          await deps.reader.list(request.identity, {
            ...filter,
            limit: 1,
            ...(query.order === 'desc' ? { beforeSeq: last.seq } : { afterSeq: last.seq }),
          })
        ).length > 0;
      return { events, hasMore };
    },
  );
  apiRoute(
    app,
    catalog,
    {
      method: 'GET',
      path: '/api/audit/types',
      summary: 'The event types in the audit events you may see, for a filter list.',
      tag: 'audit',
    },
    async ({ request }) => ({ types: await deps.reader.types(request.identity) }),
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
