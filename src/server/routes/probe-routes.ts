import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { CoreErrors } from '../../core/errors/index.ts';
import type { Store } from '../../core/store/index.ts';
import { type ApiCatalog, apiRoute } from '../api-route.ts';

/**
 * Probes for an orchestrator (Kubernetes, systemd): `/healthz` answers while the process serves
 * requests; `/readyz` only while the store answers too, so a replica that lost its database is
 * taken out of the load balancer instead of failing people's requests.
 */
export function probeRoutes(app: FastifyInstance, catalog: ApiCatalog, store: Store): void {
  apiRoute(
    app,
    catalog,
    { method: 'GET', path: '/healthz', summary: 'Liveness: the process serves requests.', tag: 'meta', auth: false },
    async () => ({ ok: true }),
  );
  apiRoute(
    app,
    catalog,
    {
      method: 'GET',
      path: '/readyz',
      summary: 'Readiness: the store answers a query (503 STORE_UNAVAILABLE otherwise).',
      tag: 'meta',
      auth: false,
    },
    async () => {
      try {
        await sql`select 1`.execute(store.db);
      } catch (error) {
        throw CoreErrors.STORE_UNAVAILABLE({}, { cause: error });
      }
      return { ok: true, store: store.dialect };
    },
  );
}
