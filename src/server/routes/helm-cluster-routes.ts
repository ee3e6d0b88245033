import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { type AuditLog, userActor } from '../../core/audit/index.ts';
import { CoreErrors } from '../../core/errors/index.ts';
import { hasRole, ROLE_ADMIN } from '../../core/identity/index.ts';
import { type ApiCatalog, apiRoute } from '../api-route.ts';

/** One target cluster of the helm agent as the server shows it: no credentials exist to leak (a context name and a path). */
interface HelmClusterView {
  readonly name: string;
  /** Absent: the server's default context, or its in-cluster identity. */
  readonly kubeContext?: string;
  readonly kubeconfig?: string;
  readonly environment: string;
  readonly namespaces: readonly string[];
  readonly createdAt: string;
}

/** What the server needs of the helm agent's cluster registry. */
export interface HelmClusterDirectory {
  list(): Promise<readonly HelmClusterView[]>;
  add(input: {
    name: string;
    kubeContext?: string;
    kubeconfig?: string;
    environment: string;
    namespaces: string[];
  }): Promise<HelmClusterView>;
  remove(name: string): Promise<void>;
}

const clusterName = z.string().min(1).max(63);
const addClusterBody = z
  .object({
    name: clusterName,
    kubeContext: z.string().min(1).max(253).optional(),
    kubeconfig: z.string().min(1).max(4096).optional(),
    environment: z.string().min(1).max(32),
    namespaces: z.array(z.string().min(1).max(63)).min(1).max(200),
  })
  .strict();

function requireAdmin(request: FastifyRequest): void {
  if (!hasRole(request.identity, ROLE_ADMIN)) throw CoreErrors.ROLE_REQUIRED({ role: ROLE_ADMIN });
}

/** Target clusters of the helm agent: admins list, register and remove them, on the record. */
export function helmClusterRoutes(app: FastifyInstance, catalog: ApiCatalog, clusters: HelmClusterDirectory, audit: AuditLog): void {
  const record = (request: FastifyRequest, type: 'helm_cluster_added' | 'helm_cluster_removed', payload: Record<string, unknown>) =>
    audit.append({
      type,
      actor: userActor(request.identity.username),
      payload: {
        ...payload,
        via: request.identity.channel ?? 'rest',
        ...(request.identity.credentialIssuedBy ? { credentialIssuedBy: request.identity.credentialIssuedBy } : {}),
      },
    });
  apiRoute(
    app,
    catalog,
    { method: 'GET', path: '/api/helm/clusters', summary: "Admins: the helm agent's registered target clusters.", tag: 'helm' },
    async ({ request }) => {
      requireAdmin(request);
      return { clusters: await clusters.list() };
    },
  );
  apiRoute(
    app,
    catalog,
    {
      method: 'POST',
      path: '/api/helm/clusters',
      summary: 'Admins: register a target cluster (kube context, optional kubeconfig path, environment, namespace allow-list).',
      tag: 'helm',
      body: addClusterBody,
    },
    async ({ body, request, reply }) => {
      requireAdmin(request);
      const cluster = await clusters.add(body as Parameters<HelmClusterDirectory['add']>[0]);
      await record(request, 'helm_cluster_added', {
        name: cluster.name,
        ...(cluster.kubeContext ? { kubeContext: cluster.kubeContext } : {}),
        ...(cluster.kubeconfig ? { kubeconfig: cluster.kubeconfig } : {}),
        environment: cluster.environment,
        namespaces: cluster.namespaces,
      });
      void reply.status(201);
      return { cluster };
    },
  );
  apiRoute(
    app,
    catalog,
    {
      method: 'DELETE',
      path: '/api/helm/clusters/:name',
      summary: 'Admins: remove a target cluster.',
      tag: 'helm',
      params: z.object({ name: clusterName }),
    },
    async ({ params, request }) => {
      requireAdmin(request);
      await clusters.remove(params.name);
      await record(request, 'helm_cluster_removed', { name: params.name });
      return { ok: true };
    },
  );
}
