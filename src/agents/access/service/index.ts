export { type AccessRow, CatalogRepository, type CatalogUser, type HeldAccess, type SweptGrant } from './catalog-repository.ts';
export { type AccessServiceOptions, createAccessService } from './create-access-service.ts';
export { catalogUserIdFor, type DemoSeed, demoAccesses, demoUsers, formatDemoTable, seedAccessDemoData } from './demo-data.ts';
export { assertDuration, assertEligible, isEligible } from './eligibility.ts';
export { AccessServiceErrors } from './errors.ts';
export { EXPIRY_SWEEPER_ACTOR, type ExpiryAuditSink, type ExpirySweeper, startExpirySweeper } from './expiry-sweeper.ts';
export { accessCatalogMigration, accessCatalogMigrations, accessTeamsMigration } from './migration.ts';
export type { AccessDatabase } from './schema.ts';
export { expiryFor, formatTimestamp } from './time.ts';
