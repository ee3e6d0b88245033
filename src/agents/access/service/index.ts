export { CatalogRepository } from './catalog-repository.ts';
export { createAccessService } from './create-access-service.ts';
export { formatDemoTable, seedAccessDemoData } from './demo-data.ts';
export { EXPIRY_SWEEPER_ACTOR, type ExpirySweeper, startExpirySweeper } from './expiry-sweeper.ts';
export { accessCatalogMigration, accessCatalogMigrations } from './migration.ts';
