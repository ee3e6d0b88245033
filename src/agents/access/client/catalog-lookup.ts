import { z } from 'zod';
import type { ToolContext, ValidatorVerdict } from '../../../core/tools/index.ts';
import { toolMessage } from '../errors.ts';
import type { AccessApiClient, ApiFailure } from './access-api-client.ts';

/** One catalog entry as the model sees it: the spec's `{id, name, description}` plus the documented extras. */
export interface ListedAccess {
  readonly id: number;
  readonly name: string;
  readonly description: string;
  /** Days a grant lasts at most (null: no renewal). Extra to the spec's return value; the approval text states it. */
  readonly renewal_period: number | null;
  /** Team tags, so "accesses for the engineering team" is answered from data. Extra to the spec. */
  readonly teams: readonly string[];
}

/** The signed-in user's catalog account: its id and teams. */
export interface CatalogAccount {
  readonly id: number;
  readonly teams: readonly string[];
}

export type Lookup<T> = { ok: true; value: T } | { ok: false; failure: ApiFailure };

interface CatalogPage {
  accesses: Array<{ id: number; name: string; description: string; renewal_period: number | null; teams?: string[] }>;
  total: number;
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

function invalidResponse(): { ok: false; failure: ApiFailure } {
  return { ok: false, failure: { kind: 'invalid_response', message: toolMessage('ACCESS_HTTP_INVALID_RESPONSE') } };
}

export interface CatalogLookupOptions {
  readonly client: AccessApiClient;
  /** Create a catalog account for an unknown login (embedded mode). Default false. */
  readonly provisionUsers?: boolean;
  /** Teams of an account created by `provisionUsers`. Default none. */
  readonly provisionTeams?: readonly string[];
}

/** The catalog reads every access tool shares: the catalog pages, the caller's account, the own-account check. */
export class CatalogLookup {
  readonly #options: CatalogLookupOptions;
  /** Catalog accounts of login usernames (they are different tables; joined by username). Successes only. */
  readonly #accounts = new Map<string, CatalogAccount>();

  constructor(options: CatalogLookupOptions) {
    this.#options = options;
  }

  get client(): AccessApiClient {
    return this.#options.client;
  }

  async catalog(team: string | undefined, signal?: AbortSignal): Promise<Lookup<ListedAccess[]>> {
    const { client } = this.#options;
    const accesses: ListedAccess[] = [];
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const query = `?limit=${PAGE}&offset=${page * PAGE}${team ? `&team=${encodeURIComponent(team)}` : ''}`;
      const result = await client.get<unknown>(`/admin/accesses${query}`, client.adminHeaders(), signal);
      if (!result.ok) return result;
      if (!isCatalogPage(result.body)) return invalidResponse();
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
    return { ok: true, value: accesses };
  }

  /** The catalog account of the signed-in user, or the failure that prevented finding it. */
  async account(username: string, signal?: AbortSignal): Promise<Lookup<CatalogAccount>> {
    const cached = this.#accounts.get(username);
    if (cached !== undefined) return { ok: true, value: cached };
    const { client, provisionUsers, provisionTeams = [] } = this.#options;
    type Me = { user_id: number; teams?: string[] };
    let result = await client.get<Me>('/me', { 'x-username': username }, signal);
    if (!result.ok && provisionUsers && result.failure.kind === 'http' && result.failure.status === 404) {
      // Embedded catalog: every opsgate login has a catalog account (with no accesses) on first use.
      const created = await client.post<Me>('/admin/users', client.adminHeaders(), { username, teams: provisionTeams }, signal);
      result = created.ok || created.failure.status !== 409 ? created : await client.get<Me>('/me', { 'x-username': username }, signal);
    }
    if (!result.ok) return result;
    if (typeof result.body.user_id !== 'number') return invalidResponse();
    const account = { id: result.body.user_id, teams: Array.isArray(result.body.teams) ? result.body.teams : [] };
    this.#accounts.set(username, account);
    return { ok: true, value: account };
  }

  /** Refuses a `user_id` that is not the catalog id of the session's username (DESIGN §3.4). */
  async checkOwnUserId(input: { user_id?: number | undefined; username: string }, context: ToolContext): Promise<ValidatorVerdict> {
    if (input.user_id === undefined) return { verdict: 'allow', reason: 'user_id is taken from the signed-in user' };
    const resolved = await this.account(input.username, context.signal);
    if (!resolved.ok) return { verdict: 'allow', reason: 'the catalog id could not be checked now; the service enforces it' };
    if (resolved.value.id === input.user_id) return { verdict: 'allow', reason: 'user_id is the signed-in user' };
    return {
      verdict: 'block',
      rule: 'own-account-only',
      category: 'identity',
      reason: `user_id ${input.user_id} is not the catalog account of ${input.username} (that is ${resolved.value.id}); tools act only for the signed-in user. Omit user_id.`,
    };
  }
}

/** The accesses of the catalog a user with these teams may hold (tagged with one of their teams). */
export function eligibleAccesses<T extends { readonly teams?: readonly string[] }>(catalog: readonly T[], teams: readonly string[]): T[] {
  return catalog.filter((access) => (access.teams ?? []).some((team) => teams.includes(team)));
}

export interface UserAccessesBody {
  user_id: number;
  username: string;
  teams?: string[];
  accesses: Array<{ id: number; name: string; description: string; assigned_at: string; expires_at?: string | null }>;
}
export function isUserAccesses(body: unknown): body is UserAccessesBody {
  return (
    typeof body === 'object' &&
    body !== null &&
    Array.isArray((body as UserAccessesBody).accesses) &&
    typeof (body as UserAccessesBody).user_id === 'number'
  );
}

export const userFields = {
  user_id: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('Catalog id of the user; omit it to use the signed-in user (any other id is refused).'),
  username: z.string().min(1).describe('Username for authentication; filled from the session.'),
};
