import { z } from 'zod';
import type { Clock } from '../../core/agent/define-agent.ts';
import { type AnyToolDefinition, defineTool, type ToolContext, type ValidatorVerdict } from '../../core/tools/index.ts';
import type { AccessApiClient, ApiFailure } from './client/access-api-client.ts';
import { GRANTED_MESSAGE, toolMessage } from './client/messages.ts';
import { expiryFor, formatTimestamp } from './service/time.ts';

/** One catalog entry as the model sees it: the spec's `{id, name, description}` plus the documented extras. */
export interface ListedAccess {
  readonly id: number;
  readonly name: string;
  readonly description: string;
  /** Days a grant lasts (null: no renewal). Extra to the spec's return value; the approval text states it. */
  readonly renewal_period: number | null;
  /** Team tags, so "accesses for the engineering team" is answered from data. Extra to the spec. */
  readonly teams: readonly string[];
}

export type ListAccessesOutput = ListedAccess[] | { readonly accesses: []; readonly error: string };

export interface UserAccessesOutputOk {
  readonly user_id: number;
  readonly username: string;
  readonly accesses: ReadonlyArray<{ readonly id: number; readonly name: string; readonly description: string }>;
}
export type UserAccessesOutput = UserAccessesOutputOk | { readonly error: string; readonly detail?: string };

export type GrantOutput =
  | {
      readonly success: true;
      readonly access: { readonly id: number; readonly name: string; readonly description: string };
      readonly message: string;
    }
  | { readonly success: false; readonly message: string; readonly detail?: string };

interface CatalogPage {
  accesses: Array<{ id: number; name: string; description: string; renewal_period: number | null; teams?: string[] }>;
  total: number;
  limit: number;
  offset: number;
}
interface UserAccessesBody {
  user_id: number;
  username: string;
  accesses: Array<{ id: number; name: string; description: string; assigned_at: string; expires_at?: string | null }>;
}
interface GrantBody {
  id: number;
  name: string;
  description: string;
  renewal_period: number | null;
  expires_at?: string | null;
}

export interface AccessToolsOptions {
  readonly client: AccessApiClient;
  /**
   * Create a catalog account for a signed-in user the catalog does not know yet (embedded mode,
   * where every opsgate login is a catalog user). Default false: a remote catalog is authoritative
   * and an unknown user gets "User not found".
   */
  readonly provisionUsers?: boolean;
  /** For the expiry shown on the approval panel. Default: the system clock. */
  readonly clock?: Clock;
}

const PAGE = 100;
const MAX_PAGES = 20;

function isCatalogPage(body: unknown): body is CatalogPage {
  return (
    typeof body === 'object' &&
    body !== null &&
    Array.isArray((body as CatalogPage).accesses) &&
    typeof (body as CatalogPage).total === 'number'
  );
}

function isUserAccesses(body: unknown): body is UserAccessesBody {
  return (
    typeof body === 'object' &&
    body !== null &&
    Array.isArray((body as UserAccessesBody).accesses) &&
    typeof (body as UserAccessesBody).user_id === 'number'
  );
}

/** The access tools of the spec, bound to one catalog service. */
export function createAccessTools(options: AccessToolsOptions): AnyToolDefinition[] {
  const { client } = options;
  const clock = options.clock ?? { now: () => new Date() };
  /** Catalog ids of login usernames (they are different tables; joined by username). Successes only. */
  const catalogIds = new Map<string, number>();

  async function fetchCatalog(
    team: string | undefined,
    signal?: AbortSignal,
  ): Promise<{ ok: true; accesses: ListedAccess[] } | { ok: false; failure: ApiFailure }> {
    const accesses: ListedAccess[] = [];
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const query = `?limit=${PAGE}&offset=${page * PAGE}${team ? `&team=${encodeURIComponent(team)}` : ''}`;
      const result = await client.get<unknown>(`/admin/accesses${query}`, client.adminHeaders(), signal);
      if (!result.ok) return result;
      if (!isCatalogPage(result.body))
        return { ok: false, failure: { kind: 'invalid_response', message: toolMessage('ACCESS_HTTP_INVALID_RESPONSE') } };
      for (const a of result.body.accesses) {
        accesses.push({
          id: a.id,
          name: a.name,
          description: a.description,
          renewal_period: a.renewal_period ?? null,
          teams: a.teams ?? [],
        });
      }
      if (accesses.length >= result.body.total || result.body.accesses.length === 0) break;
    }
    return { ok: true, accesses };
  }

  /** The catalog id of the signed-in user, or the failure that prevented finding it. */
  async function resolveCatalogId(
    username: string,
    signal?: AbortSignal,
  ): Promise<{ ok: true; id: number } | { ok: false; failure: ApiFailure }> {
    const cached = catalogIds.get(username);
    if (cached !== undefined) return { ok: true, id: cached };
    let result = await client.get<{ user_id: number }>('/me', { 'x-username': username }, signal);
    if (!result.ok && options.provisionUsers && result.failure.kind === 'http' && result.failure.status === 404) {
      // Embedded catalog: every opsgate login has a catalog account (with no accesses) on first use.
      const created = await client.post<{ user_id: number }>('/admin/users', client.adminHeaders(), { username }, signal);
      result =
        created.ok || created.failure.status !== 409
          ? created
          : await client.get<{ user_id: number }>('/me', { 'x-username': username }, signal);
    }
    if (!result.ok) return result;
    if (typeof result.body.user_id !== 'number')
      return { ok: false, failure: { kind: 'invalid_response', message: toolMessage('ACCESS_HTTP_INVALID_RESPONSE') } };
    catalogIds.set(username, result.body.user_id);
    return { ok: true, id: result.body.user_id };
  }

  /** Refuses a `user_id` that is not the catalog id of the session's username (DESIGN §3.4). */
  async function checkOwnUserId(
    input: { user_id?: number | undefined; username: string },
    context: ToolContext,
  ): Promise<ValidatorVerdict> {
    if (input.user_id === undefined) return { verdict: 'allow', reason: 'user_id is taken from the signed-in user' };
    const resolved = await resolveCatalogId(input.username, context.signal);
    if (!resolved.ok) return { verdict: 'allow', reason: 'the catalog id could not be checked now; the service enforces it' };
    if (resolved.id === input.user_id) return { verdict: 'allow', reason: 'user_id is the signed-in user' };
    return {
      verdict: 'block',
      rule: 'own-account-only',
      category: 'identity',
      reason: `user_id ${input.user_id} is not the catalog account of ${input.username} (that is ${resolved.id}); tools act only for the signed-in user. Omit user_id.`,
    };
  }

  const userFields = {
    user_id: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('Catalog id of the user; omit it to use the signed-in user (any other id is refused).'),
    username: z.string().min(1).describe('Username for authentication; filled from the session.'),
  };

  const listAvailableAccesses = defineTool({
    name: 'list_available_accesses',
    description:
      'Retrieve all available accesses from the access catalog: id, name, description, renewal_period (days) and team tags. Pass team (e.g. "engineering") to list only that team\'s accesses.',
    input: z.object({ team: z.string().min(1).max(40).optional().describe('Only accesses tagged with this team.') }),
    mutability: 'read-only',
    async execute(input, context): Promise<ListAccessesOutput> {
      const result = await fetchCatalog(input.team?.toLowerCase(), context.signal);
      if (result.ok) return result.accesses;
      context.logger.warn(
        { tool: 'list_available_accesses', kind: result.failure.kind, status: result.failure.status },
        'access catalog call failed',
      );
      return { accesses: [], error: result.failure.message };
    },
  });

  const getUserAccesses = defineTool({
    name: 'get_user_accesses',
    description: 'Get all accesses currently assigned to the signed-in user (not expired, not revoked).',
    input: z.object({ ...userFields }),
    mutability: 'read-only',
    identity: { username: 'username' },
    validate: checkOwnUserId,
    async execute(input, context): Promise<UserAccessesOutput> {
      const id = await resolveCatalogId(input.username, context.signal);
      if (!id.ok) return { ...userReadFailure(id.failure) };
      if (input.user_id !== undefined && input.user_id !== id.id) return { error: toolMessage('ACCESS_HTTP_FORBIDDEN') };
      const result = await client.get<unknown>(`/users/${id.id}/accesses`, { 'x-username': input.username }, context.signal);
      if (!result.ok) return userReadFailure(result.failure);
      if (!isUserAccesses(result.body)) return { error: toolMessage('ACCESS_HTTP_INVALID_RESPONSE') };
      return {
        user_id: result.body.user_id,
        username: result.body.username,
        accesses: result.body.accesses.map((a) => ({ id: a.id, name: a.name, description: a.description })),
      };
    },
  });

  const grantAccessToUser = defineTool({
    name: 'grant_access_to_user',
    description:
      "Grant an access (by its catalog name, e.g. READ_DOCUMENTS) to the signed-in user. Needs the person's confirmation: propose it only after they asked for that exact access.",
    input: z.object({
      ...userFields,
      access_name: z
        .string()
        .trim()
        .min(1, toolMessage('ACCESS_TOOL_INVALID_ACCESS_NAME'))
        .max(100)
        .describe('Name of the access to grant, e.g. "READ_DOCUMENTS".'),
    }),
    mutability: 'mutable',
    identity: { username: 'username' },
    validate: checkOwnUserId,
    async preview(input, context) {
      const catalog = await fetchCatalog(undefined, context.signal);
      const access = catalog.ok ? catalog.accesses.find((a) => a.name === input.access_name) : undefined;
      if (!access) {
        return {
          kind: 'access-grant',
          summary: catalog.ok
            ? `Grant ${input.access_name} to ${input.username}: there is no such access in the catalog; the grant will fail.`
            : `Grant ${input.access_name} to ${input.username} (the catalog could not be read: ${catalog.failure.message}).`,
          details: { access_name: input.access_name, username: input.username },
        };
      }
      const expiry = expiryFor(clock.now(), access.renewal_period);
      const renewal =
        access.renewal_period === null
          ? 'No renewal period: the grant does not expire.'
          : `Renewal period: ${access.renewal_period} days — if approved now, it expires on ${formatTimestamp(expiry!)} unless renewed.`;
      return {
        kind: 'access-grant',
        summary: `Grant ${access.name} to ${input.username}: ${access.description}. ${renewal}`,
        details: {
          access_name: access.name,
          description: access.description,
          renewal_period: access.renewal_period,
          expires_at: expiry ? formatTimestamp(expiry) : null,
          teams: access.teams,
          username: input.username,
        },
      };
    },
    async execute(input, context): Promise<GrantOutput> {
      const id = await resolveCatalogId(input.username, context.signal);
      if (!id.ok) return grantFailure(id.failure, input.access_name);
      if (input.user_id !== undefined && input.user_id !== id.id) return { success: false, message: toolMessage('ACCESS_HTTP_FORBIDDEN') };
      const headers = { 'x-username': input.username };
      const result = await client.post<GrantBody>(`/users/${id.id}/accesses`, headers, { access_name: input.access_name }, context.signal);
      if (result.ok) {
        const { id: accessId, name, description } = result.body;
        await context.audit('access_granted', { access_name: name, catalog_user_id: id.id, expires_at: result.body.expires_at ?? null });
        return { success: true, access: { id: accessId, name, description }, message: GRANTED_MESSAGE };
      }
      const failure = result.failure;
      const outcomeUnknown =
        failure.kind === 'timeout' || (failure.kind === 'http' && (failure.status ?? 0) >= 500) || failure.kind === 'network';
      if (!outcomeUnknown) return grantFailure(failure, input.access_name);
      // The grant may have landed. Never resend blindly: read what the user holds first.
      const check = await client.get<unknown>(`/users/${id.id}/accesses`, headers, context.signal);
      if (check.ok && isUserAccesses(check.body)) {
        const held = check.body.accesses.find((a) => a.name === input.access_name);
        if (held) {
          await context.audit('access_granted', { access_name: held.name, catalog_user_id: id.id, confirmed_by_reread: true });
          return { success: true, access: { id: held.id, name: held.name, description: held.description }, message: GRANTED_MESSAGE };
        }
        return {
          ...grantFailure(failure, input.access_name),
          detail: `${failure.message}; the access was not granted (checked). Try again later.`,
        };
      }
      return {
        ...grantFailure(failure, input.access_name),
        detail: `${failure.message}; whether the grant landed is unknown. Check with get_user_accesses before trying again.`,
      };
    },
  });

  return [listAvailableAccesses, getUserAccesses, grantAccessToUser];
}

/** get_user_accesses' own rows first, then the generic ones. */
function userReadFailure(failure: ApiFailure): { error: string; detail?: string } {
  if (failure.kind === 'http' && failure.status === 404) return { error: toolMessage('ACCESS_TOOL_USER_NOT_FOUND') };
  if (failure.kind === 'http' && failure.status === 401) return { error: toolMessage('ACCESS_TOOL_AUTH_FAILED') };
  if (failure.kind === 'http' && failure.status !== undefined && failure.status < 500) return { error: failure.message };
  return { error: toolMessage('ACCESS_TOOL_BACKEND_UNAVAILABLE'), detail: failure.message };
}

/** grant_access_to_user's own rows first, then the generic ones. */
function grantFailure(failure: ApiFailure, accessName: string): { success: false; message: string; detail?: string } {
  if (failure.kind === 'http') {
    if (failure.status === 404) {
      return failure.code === 'ACCESS_USER_NOT_FOUND'
        ? { success: false, message: toolMessage('ACCESS_TOOL_USER_NOT_FOUND') }
        : { success: false, message: toolMessage('ACCESS_TOOL_ACCESS_NOT_FOUND', { accessName }) };
    }
    if (failure.status === 409) return { success: false, message: toolMessage('ACCESS_TOOL_ALREADY_ASSIGNED') };
    if (failure.status === 401) return { success: false, message: toolMessage('ACCESS_TOOL_AUTH_FAILED') };
    if (failure.status !== undefined && failure.status < 500) return { success: false, message: failure.message };
  }
  return { success: false, message: toolMessage('ACCESS_TOOL_BACKEND_UNAVAILABLE'), detail: failure.message };
}
