export { createTestToolContext, testIdentity, type RecordedToolContext } from './tool-context.ts';
export { testStoreFactories, sqliteTestStore, postgresTestStore, testDatabaseUrl, type TestStore, type TestStoreFactory } from './test-stores.ts';
export { createLedgerAgent, createLedgerModel, type LedgerRecorder } from './ledger-agent.ts';
export { fixedClock } from './fixed-clock.ts';
