import { z } from 'zod';
import { type AnyToolDefinition, defineTool } from '../../../core/tools/index.ts';
import type { AccessApiClient } from '../client/access-api-client.ts';
import { type CatalogLookup, isUserAccesses, userFields } from '../client/catalog-lookup.ts';
import { toolMessage } from '../errors.ts';
import { userReadFailure } from './failures.ts';

interface UserAccessesOutputOk {
  readonly user_id: number;
  readonly username: string;
  /** The user's teams: the accesses they may request are those tagged with one of them. Extra to the spec. */
  readonly teams: readonly string[];
  readonly accesses: ReadonlyArray<{
    readonly id: number;
    readonly name: string;
    readonly description: string;
    /** When the grant ends (null: never). Extra to the spec. */
    readonly expires_at: string | null;
  }>;
}
type UserAccessesOutput = UserAccessesOutputOk | { readonly error: string; readonly detail?: string };

/** `get_user_accesses`: what the signed-in user holds now, and their teams. Read-only. */
export function createGetUserAccessesTool(lookup: CatalogLookup, client: AccessApiClient): AnyToolDefinition {
  return defineTool({
    name: 'get_user_accesses',
    description:
      "Get all accesses currently assigned to the signed-in user (not expired, not revoked), with each grant's expires_at, and the user's teams (only accesses of those teams may be requested).",
    input: z.object({ ...userFields }),
    mutability: 'read-only',
    identity: { username: 'username' },
    // Grants expire by themselves: a cached answer would show an expired grant as held.
    cache: false,
    validate: (input, context) => lookup.checkOwnUserId(input, context),
    async execute(input, context): Promise<UserAccessesOutput> {
      const account = await lookup.account(input.username, context.signal);
      if (!account.ok) return { ...userReadFailure(account.failure) };
      const id = account.value.id;
      if (input.user_id !== undefined && input.user_id !== id) return { error: toolMessage('ACCESS_HTTP_FORBIDDEN') };
      const result = await client.get<unknown>(`/users/${id}/accesses`, { 'x-username': input.username }, context.signal);
      if (!result.ok) return userReadFailure(result.failure);
      if (!isUserAccesses(result.body)) return { error: toolMessage('ACCESS_HTTP_INVALID_RESPONSE') };
      return {
        user_id: result.body.user_id,
        username: result.body.username,
        teams: result.body.teams ?? account.value.teams,
        accesses: result.body.accesses.map((a) => ({
          id: a.id,
          name: a.name,
          description: a.description,
          expires_at: a.expires_at ?? null,
        })),
      };
    },
  });
}
