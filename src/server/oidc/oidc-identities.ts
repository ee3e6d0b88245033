import type { Kysely } from 'kysely';
import type { TeamDirectory } from '../../core/runtime/index.ts';
import type { Store, StoreMigration } from '../../core/store/index.ts';

interface OidcIdentitiesTable {
  issuer: string;
  subject: string;
  user_id: number;
  /** JSON list of the teams the last sign-on named. */
  teams: string;
  updated_at: string;
}

interface OidcDatabase {
  oidc_identities: OidcIdentitiesTable;
  users: { id: number; username: string };
}

const oidcIdentitiesMigration: StoreMigration = {
  name: 'oidc-001-identities',
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('oidc_identities')
      .addColumn('issuer', 'text', (c) => c.notNull())
      .addColumn('subject', 'text', (c) => c.notNull())
      .addColumn('user_id', 'integer', (c) => c.notNull())
      .addColumn('teams', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('oidc_identities_pk', ['issuer', 'subject'])
      .execute();
  },
};

/**
 * Which opsgate user an issuer's subject is (a sign-on never takes over an account by name alone),
 * and the teams their last sign-on named: the team directory of the Cedar policy's principals.
 */
export class OidcIdentities implements TeamDirectory {
  readonly #db: Kysely<OidcDatabase>;

  /** Creates the `oidc_identities` table when missing. */
  static async create(store: Store): Promise<OidcIdentities> {
    await store.migrate([oidcIdentitiesMigration]);
    return new OidcIdentities(store);
  }

  constructor(store: Store) {
    this.#db = store.db as unknown as Kysely<OidcDatabase>;
  }

  async userFor(issuer: string, subject: string): Promise<number | undefined> {
    const row = await this.#db
      .selectFrom('oidc_identities')
      .select('user_id')
      .where('issuer', '=', issuer)
      .where('subject', '=', subject)
      .executeTakeFirst();
    return row?.user_id;
  }

  async link(input: { issuer: string; subject: string; userId: number; teams: readonly string[]; at: string }): Promise<void> {
    const teams = JSON.stringify(input.teams);
    await this.#db
      .insertInto('oidc_identities')
      .values({ issuer: input.issuer, subject: input.subject, user_id: input.userId, teams, updated_at: input.at })
      .onConflict((oc) => oc.columns(['issuer', 'subject']).doUpdateSet({ teams, updated_at: input.at }))
      .execute();
  }

  async teamsOf(usernames: readonly string[]): Promise<ReadonlyMap<string, readonly string[]>> {
    if (usernames.length === 0) return new Map();
    const rows = await this.#db
      .selectFrom('oidc_identities as o')
      .innerJoin('users as u', 'u.id', 'o.user_id')
      .select(['u.username', 'o.teams'])
      .where('u.username', 'in', [...usernames])
      .orderBy('o.updated_at', 'asc')
      .execute();
    return new Map(rows.map((row) => [row.username, JSON.parse(row.teams) as string[]]));
  }
}
