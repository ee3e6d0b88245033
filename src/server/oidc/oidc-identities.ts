import type { Kysely } from 'kysely';
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
}

export const oidcIdentitiesMigration: StoreMigration = {
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

/** Which opsgate user an issuer's subject is: a sign-on never takes over an account by name alone. */
export class OidcIdentities {
  readonly #db: Kysely<OidcDatabase>;

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
}
