import type { Kysely } from 'kysely';
import { type Migration, type MigrationProvider, Migrator } from 'kysely/migration';

export type StoreDialectName = 'sqlite' | 'postgres';

/**
 * One schema change. Core and each agent contribute their own; names sort the order
 * (`core-001-…`, `access-001-…`) and must never change once released.
 */
export interface StoreMigration {
  readonly name: string;
  up(db: Kysely<unknown>, dialect: StoreDialectName): Promise<void>;
}

export async function runMigrations(
  db: Kysely<unknown>,
  dialect: StoreDialectName,
  migrations: readonly StoreMigration[],
): Promise<string[]> {
  const byName = new Map<string, StoreMigration>();
  for (const migration of migrations) {
    if (byName.has(migration.name) && byName.get(migration.name) !== migration) {
      throw new Error(`two different migrations are named ${migration.name}`);
    }
    byName.set(migration.name, migration);
  }
  // Migrations that another part of opsgate applied earlier (an agent this process does not load)
  // are already done; they stand in as no-ops so Kysely does not report them missing.
  const applied = await db
    .selectFrom('opsgate_migrations' as never)
    .select('name' as never)
    .execute()
    .catch(() => [] as Array<{ name: string }>);
  for (const row of applied as Array<{ name: string }>) {
    if (!byName.has(row.name)) byName.set(row.name, { name: row.name, up: async () => {} });
  }
  const provider: MigrationProvider = {
    async getMigrations() {
      const result: Record<string, Migration> = {};
      for (const [name, migration] of byName) result[name] = { up: (kysely) => migration.up(kysely, dialect) };
      return result;
    },
  };
  const migrator = new Migrator({
    db,
    provider,
    allowUnorderedMigrations: true,
    migrationTableName: 'opsgate_migrations',
    migrationLockTableName: 'opsgate_migration_lock',
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
