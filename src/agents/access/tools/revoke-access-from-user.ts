import { z } from 'zod';
import { type AnyToolDefinition, defineTool } from '../../../core/tools/index.ts';
import { type CatalogLookup, isUserAccesses, userFields } from '../client/catalog-lookup.ts';
import { toolMessage } from '../errors.ts';
import { assessRevokeRisk } from '../risk.ts';
import { grantFailure } from './failures.ts';

type RevokeOutput =
  | { readonly success: true; readonly access_name: string; readonly revoked_at: string; readonly message: string }
  | { readonly success: false; readonly message: string; readonly detail?: string };

const REVOKED_MESSAGE = 'Access revoked successfully';

/** `revoke_access_from_user`: ends one of the signed-in user's grants. Mutable: approved first, audited. */
export function createRevokeTool(lookup: CatalogLookup): AnyToolDefinition {
  return defineTool({
    name: 'revoke_access_from_user',
    description:
      "Revoke (remove) an access the signed-in user holds, by its catalog name. Needs the person's confirmation: propose it only after they asked to give up that access.",
    input: z.object({
      ...userFields,
      access_name: z.string().trim().min(1, toolMessage('ACCESS_TOOL_INVALID_ACCESS_NAME')).max(100).describe('Name of the held access.'),
      reason: z.string().trim().min(1).max(500).optional().describe('Why it is given up (recorded in the audit log).'),
    }),
    mutability: 'mutable',
    identity: { username: 'username' },
    validate: (input, context) => lookup.checkOwnUserId(input, context),
    assessRisk: (input) => assessRevokeRisk(input.access_name),
    async preview(input, context) {
      const account = await lookup.account(input.username, context.signal);
      const held = account.ok
        ? await lookup.client.get<unknown>(`/users/${account.value.id}/accesses`, { 'x-username': input.username }, context.signal)
        : undefined;
      const grant = held?.ok && isUserAccesses(held.body) ? held.body.accesses.find((a) => a.name === input.access_name) : undefined;
      return {
        kind: 'access-revoke',
        summary: grant
          ? `Revoke ${input.access_name} from ${input.username} (granted ${grant.assigned_at}${grant.expires_at ? `, would expire ${grant.expires_at}` : ''}).`
          : `Revoke ${input.access_name} from ${input.username}: no active grant was found; the revoke will fail.`,
        headline: `remove ${input.access_name} from ${input.username}`,
        details: { access_name: input.access_name, username: input.username, held: grant !== undefined, reason: input.reason ?? null },
      };
    },
    async execute(input, context): Promise<RevokeOutput> {
      const account = await lookup.account(input.username, context.signal);
      if (!account.ok) return grantFailure(account.failure, input.access_name);
      const id = account.value.id;
      if (input.user_id !== undefined && input.user_id !== id) return { success: false, message: toolMessage('ACCESS_HTTP_FORBIDDEN') };
      const path = `/users/${id}/accesses/${encodeURIComponent(input.access_name)}`;
      const result = await lookup.client.delete<{ access_name: string; revoked_at: string }>(
        path,
        { 'x-username': input.username },
        context.signal,
      );
      if (!result.ok) {
        if (result.failure.kind === 'http' && result.failure.status === 404 && result.failure.code === 'ACCESS_GRANT_NOT_FOUND')
          return { success: false, message: `You do not hold ${input.access_name}; nothing to revoke.` };
        return grantFailure(result.failure, input.access_name);
      }
      await context.audit('access_revoked', {
        access_name: result.body.access_name,
        catalog_user_id: id,
        revoked_at: result.body.revoked_at,
        reason: input.reason ?? null,
      });
      return { success: true, access_name: result.body.access_name, revoked_at: result.body.revoked_at, message: REVOKED_MESSAGE };
    },
  });
}
