import { type Kysely, sql } from 'kysely';
import type { StoreMigration } from '../../../core/store/index.ts';

/** The catalog's tables in the opsgate store. The name must never change once released. */
export const accessCatalogMigration: StoreMigration = {
  name: 'access-001-catalog',
  async up(db: Kysely<unknown>, dialect) {
    const autoId = dialect === 'postgres' ? sql`serial primary key` : sql`integer primary key autoincrement`;
    await db.schema
      .createTable('accesses')
      .addColumn('id', autoId as never)
      .addColumn('name', 'text', (c) => c.notNull().unique())
      .addColumn('description', 'text', (c) => c.notNull())
      .addColumn('renewal_period', 'integer')
      .addColumn('teams', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('access_users')
      .addColumn('id', autoId as never)
      .addColumn('username', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('user_accesses')
      .addColumn('id', autoId as never)
      .addColumn('user_id', 'integer', (c) => c.notNull().references('access_users.id').onDelete('cascade'))
      .addColumn('access_id', 'integer', (c) => c.notNull().references('accesses.id').onDelete('cascade'))
      .addColumn('assigned_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text')
      .addColumn('reason', 'text')
      .addColumn('revoked_at', 'text')
      .execute();
    await db.schema.createIndex('user_accesses_user').on('user_accesses').columns(['user_id', 'access_id']).execute();
  },
};

/** Teams of catalog users: a grant is refused unless the access is tagged for one of them. */
const accessTeamsMigration: StoreMigration = {
  name: 'access-002-user-teams',
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('access_users')
      .addColumn('teams', 'text', (c) => c.notNull().defaultTo('[]'))
      .execute();
    await db.schema.createIndex('user_accesses_expiry').on('user_accesses').columns(['revoked_at', 'expires_at']).execute();
  },
};

/** Every catalog migration, in order. */
export const accessCatalogMigrations: readonly StoreMigration[] = [accessCatalogMigration, accessTeamsMigration];
