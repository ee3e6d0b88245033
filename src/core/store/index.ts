export { openStore, resolveDataDir, type Store, type StoreOptions } from './open-store.ts';
export { runMigrations, type StoreMigration, type StoreDialectName } from './migration.ts';
export type * from './schema.ts';
