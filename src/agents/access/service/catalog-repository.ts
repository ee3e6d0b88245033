import type { Kysely } from 'kysely';
import type { Store } from '../../../core/store/index.ts';
import { AccessServiceErrors } from './errors.ts';
import type { AccessDatabase } from './schema.ts';
import { expiryFor, formatTimestamp } from './time.ts';

export interface AccessRow {
  readonly id: number;
  readonly name: string;
  readonly description: string;
  readonly renewal_period: number | null;
  readonly teams: readonly string[];
}

export interface CatalogUser {
  readonly id: number;
  readonly username: string;
  /** Team tags; the user may hold only accesses tagged with one of them. */
  readonly teams: readonly string[];
}

/** A grant the sweeper ended because its `expires_at` passed. */
export interface SweptGrant {
  readonly grant_id: number;
  readonly user_id: number;
  readonly username: string;
  readonly access_name: string;
  readonly assigned_at: string;
  readonly expires_at: string;
  readonly revoked_at: string;
}

export interface HeldAccess {
  readonly id: number;
  readonly name: string;
  readonly description: string;
  readonly assigned_at: string;
  readonly expires_at: string | null;
}

export interface GrantRow {
  readonly access: AccessRow;
  readonly assigned_at: string;
  readonly expires_at: string | null;
}

function parseTeams(text: string): string[] {
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed.filter((t): t is string => typeof t === 'string') : [];
  } catch {
    return [];
  }
}

function toAccessRow(row: { id: number; name: string; description: string; renewal_period: number | null; teams: string }): AccessRow {
  return {
    id: Number(row.id),
    name: row.name,
    description: row.description,
    renewal_period: row.renewal_period === null ? null : Number(row.renewal_period),
    teams: parseTeams(row.teams),
  };
}

function isUniqueViolation(error: unknown): boolean {
  const text = error instanceof Error ? `${error.message} ${(error as { code?: unknown }).code ?? ''}` : String(error);
  return /UNIQUE constraint|duplicate key|23505/i.test(text);
}

/**
 * Reads and writes the catalog tables. Shared by SQLite and PostgreSQL; the only dialect
 * difference is the row lock that serialises concurrent grants of one user on PostgreSQL.
 */
export class CatalogRepository {
  readonly #db: Kysely<AccessDatabase>;
  readonly #lockRows: boolean;
  /** Catalog users by id. Users are never renamed or deleted, so an entry cannot go stale. */
  readonly #usersById = new Map<number, CatalogUser>();

  constructor(store: Store) {
    this.#db = store.db as unknown as Kysely<AccessDatabase>;
    this.#lockRows = store.dialect === 'postgres';
  }

  async listAccesses(page: { limit: number; offset: number; team?: string }): Promise<{ accesses: AccessRow[]; total: number }> {
    let rows = this.#db.selectFrom('accesses').select(['id', 'name', 'description', 'renewal_period', 'teams']);
    let count = this.#db.selectFrom('accesses').select((eb) => eb.fn.countAll<number>().as('total'));
    if (page.team !== undefined) {
      const pattern = `%${JSON.stringify(page.team)}%`;
      rows = rows.where('teams', 'like', pattern);
      count = count.where('teams', 'like', pattern);
    }
    const list = await rows.orderBy('id').limit(page.limit).offset(page.offset).execute();
    // A short page that is not past the end already tells the total; count only otherwise.
    if (list.length > 0 && list.length < page.limit) return { accesses: list.map(toAccessRow), total: page.offset + list.length };
    const totalRow = await count.executeTakeFirstOrThrow();
    return { accesses: list.map(toAccessRow), total: Number(totalRow.total) };
  }

  async findAccess(name: string): Promise<AccessRow | undefined> {
    const row = await this.#db
      .selectFrom('accesses')
      .select(['id', 'name', 'description', 'renewal_period', 'teams'])
      .where('name', '=', name)
      .executeTakeFirst();
    return row ? toAccessRow(row) : undefined;
  }

  async findUserById(id: number): Promise<CatalogUser | undefined> {
    const cached = this.#usersById.get(id);
    if (cached) return cached;
    const row = await this.#db.selectFrom('access_users').select(['id', 'username', 'teams']).where('id', '=', id).executeTakeFirst();
    if (!row) return undefined;
    const user = { id: Number(row.id), username: row.username, teams: parseTeams(row.teams) };
    if (this.#usersById.size >= 100_000) this.#usersById.clear();
    this.#usersById.set(id, user);
    return user;
  }

  async findUserByUsername(username: string): Promise<CatalogUser | undefined> {
    const row = await this.#db
      .selectFrom('access_users')
      .select(['id', 'username', 'teams'])
      .where('username', '=', username)
      .executeTakeFirst();
    return row ? { id: Number(row.id), username: row.username, teams: parseTeams(row.teams) } : undefined;
  }

  /** Grants held at `now`: neither revoked nor expired, oldest first. */
  async heldAccesses(userId: number, now: Date): Promise<HeldAccess[]> {
    const rows = await this.#db
      .selectFrom('user_accesses as g')
      .innerJoin('accesses as a', 'a.id', 'g.access_id')
      .select(['a.id', 'a.name', 'a.description', 'g.assigned_at', 'g.expires_at'])
      .where('g.user_id', '=', userId)
      .where('g.revoked_at', 'is', null)
      .where((eb) => eb.or([eb('g.expires_at', 'is', null), eb('g.expires_at', '>', formatTimestamp(now))]))
      .orderBy('g.id')
      .execute();
    return rows.map((r) => ({
      id: Number(r.id),
      name: r.name,
      description: r.description,
      assigned_at: r.assigned_at,
      expires_at: r.expires_at,
    }));
  }

  /**
   * Records a grant lasting `durationDays` (at most the access's renewal period; default that
   * period); throws `ACCESS_ALREADY_GRANTED` when the user holds it already.
   */
  async grant(
    user: CatalogUser,
    access: AccessRow,
    now: Date,
    reason: string | null,
    durationDays: number | null = null,
  ): Promise<GrantRow> {
    const nowText = formatTimestamp(now);
    return this.#db.transaction().execute(async (trx) => {
      if (this.#lockRows) await trx.selectFrom('access_users').select('id').where('id', '=', user.id).forUpdate().execute();
      const held = await trx
        .selectFrom('user_accesses')
        .select(['assigned_at'])
        .where('user_id', '=', user.id)
        .where('access_id', '=', access.id)
        .where('revoked_at', 'is', null)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', nowText)]))
        .executeTakeFirst();
      if (held)
        throw AccessServiceErrors.ACCESS_ALREADY_GRANTED({
          username: user.username,
          accessName: access.name,
          assignedAt: held.assigned_at,
        });
      const expiry = expiryFor(now, durationDays ?? access.renewal_period);
      const expiresAt = expiry ? formatTimestamp(expiry) : null;
      await trx
        .insertInto('user_accesses')
        .values({ user_id: user.id, access_id: access.id, assigned_at: nowText, expires_at: expiresAt, reason, revoked_at: null })
        .execute();
      return { access, assigned_at: nowText, expires_at: expiresAt };
    });
  }

  /** Ends the active grant; throws `ACCESS_GRANT_NOT_FOUND` when there is none. */
  async revoke(userId: number, access: AccessRow, now: Date): Promise<{ revoked_at: string }> {
    const nowText = formatTimestamp(now);
    const result = await this.#db
      .updateTable('user_accesses')
      .set({ revoked_at: nowText })
      .where('user_id', '=', userId)
      .where('access_id', '=', access.id)
      .where('revoked_at', 'is', null)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', nowText)]))
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) throw AccessServiceErrors.ACCESS_GRANT_NOT_FOUND({ userId, accessName: access.name });
    return { revoked_at: nowText };
  }

  /**
   * Ends every grant whose `expires_at` has passed and that nobody revoked yet; returns the grants it
   * ended. Each row is claimed by a conditional update, so two sweepers never report one grant twice.
   */
  async sweepExpired(now: Date, limit = 500): Promise<SweptGrant[]> {
    const nowText = formatTimestamp(now);
    const due = await this.#db
      .selectFrom('user_accesses as g')
      .innerJoin('accesses as a', 'a.id', 'g.access_id')
      .innerJoin('access_users as u', 'u.id', 'g.user_id')
      .select(['g.id', 'g.user_id', 'u.username', 'a.name', 'g.assigned_at', 'g.expires_at'])
      .where('g.revoked_at', 'is', null)
      .where('g.expires_at', 'is not', null)
      .where('g.expires_at', '<=', nowText)
      .orderBy('g.id')
      .limit(limit)
      .execute();
    const swept: SweptGrant[] = [];
    for (const row of due) {
      const result = await this.#db
        .updateTable('user_accesses')
        .set({ revoked_at: nowText })
        .where('id', '=', row.id)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) continue;
      swept.push({
        grant_id: Number(row.id),
        user_id: Number(row.user_id),
        username: row.username,
        access_name: row.name,
        assigned_at: row.assigned_at,
        expires_at: row.expires_at ?? nowText,
        revoked_at: nowText,
      });
    }
    return swept;
  }

  async createAccess(
    input: { name: string; description: string; renewal_period: number | null; teams: readonly string[] },
    now: Date,
  ): Promise<AccessRow> {
    try {
      const row = await this.#db
        .insertInto('accesses')
        .values({
          name: input.name,
          description: input.description,
          renewal_period: input.renewal_period,
          teams: JSON.stringify(input.teams),
          created_at: formatTimestamp(now),
        })
        .returning(['id', 'name', 'description', 'renewal_period', 'teams'])
        .executeTakeFirstOrThrow();
      return toAccessRow(row);
    } catch (error) {
      if (isUniqueViolation(error)) throw AccessServiceErrors.ACCESS_NAME_TAKEN({ accessName: input.name });
      throw error;
    }
  }

  async createUser(username: string, now: Date, teams: readonly string[] = []): Promise<CatalogUser> {
    try {
      const row = await this.#db
        .insertInto('access_users')
        .values({ username, teams: JSON.stringify(teams), created_at: formatTimestamp(now) })
        .returning(['id', 'username', 'teams'])
        .executeTakeFirstOrThrow();
      return { id: Number(row.id), username: row.username, teams: parseTeams(row.teams) };
    } catch (error) {
      if (isUniqueViolation(error)) throw AccessServiceErrors.ACCESS_USERNAME_TAKEN({ username });
      throw error;
    }
  }
}
