import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { userActor } from '../../core/audit/index.ts';
import { CoreErrors } from '../../core/errors/index.ts';
import { hasRole, ROLE_ADMIN } from '../../core/identity/index.ts';
import type { Store } from '../../core/store/index.ts';
import { type Gateway, ToolDefinitions, toolChangeView } from '../../gateway/index.ts';
import { type ApiCatalog, apiRoute } from '../api-route.ts';

const acceptBody = z
  .object({
    upstream: z.string().min(1).max(64),
    tool: z.string().min(1).max(128),
    /** The changed definition the admin reviewed (its hash from the list). */
    changedHash: z.string().regex(/^[0-9a-f]{64}$/),
  })
  .strict();

function requireAdmin(request: FastifyRequest): void {
  if (!hasRole(request.identity, ROLE_ADMIN)) throw CoreErrors.ROLE_REQUIRED({ role: ROLE_ADMIN });
}

/**
 * The gateway's tool pinning for admins in the web UI (F3): the changed definitions held back,
 * each as a diff against the accepted one, and accepting exactly the reviewed one — the same
 * `tool_definition_accepted` audit event as `opsgate gateway --accept-tool`, naming the person.
 * The list is served without a gateway too (an empty list that says so), so the admin screen asks
 * without a 404; the gateway's tables exist only where a gateway has run.
 */
export function gatewayAdminRoutes(app: FastifyInstance, catalog: ApiCatalog, gateway: Gateway | undefined, store: Store): void {
  const definitions = new ToolDefinitions(store);
  apiRoute(
    app,
    catalog,
    {
      method: 'GET',
      path: '/api/gateway/tool-changes',
      summary: 'Admins: MCP gateway tools whose definition changed since it was accepted (held back until accepted), with a diff.',
      tag: 'gateway',
    },
    async ({ request }) => {
      requireAdmin(request);
      if (!gateway) return { gateway: false, changes: [] };
      return { gateway: true, changes: (await definitions.changed()).map(toolChangeView) };
    },
  );
  if (!gateway) return;
  apiRoute(
    app,
    catalog,
    {
      method: 'POST',
      path: '/api/gateway/tool-changes/accept',
      summary: 'Admins: accept the reviewed changed definition of one upstream tool; the gateway offers it again.',
      tag: 'gateway',
      body: acceptBody,
    },
    async ({ request, body }) => {
      requireAdmin(request);
      const change = await definitions.accept(
        body.upstream,
        body.tool,
        { actor: userActor(request.identity.username), username: request.identity.username, via: request.identity.channel ?? 'web' },
        body.changedHash,
      );
      await gateway.upstreams.get(body.upstream)?.review();
      return { accepted: toolChangeView(change) };
    },
  );
}
