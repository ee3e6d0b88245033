export { type AccessRow, CatalogRepository, type CatalogUser, type HeldAccess } from './catalog-repository.ts';
export { type AccessServiceOptions, createAccessService } from './create-access-service.ts';
export { catalogUserIdFor, type DemoSeed, demoAccesses, demoUsers, formatDemoTable, seedAccessDemoData } from './demo-data.ts';
export { AccessServiceErrors } from './errors.ts';
export { accessCatalogMigration } from './migration.ts';
export type { AccessDatabase } from './schema.ts';
export { expiryFor, formatTimestamp } from './time.ts';
