export { fixedClock } from './fixed-clock.ts';
export { createLedgerAgent, createLedgerModel, type LedgerRecorder } from './ledger-agent.ts';
export { generateResult } from './mock-model-results.ts';
export { SqliteWalPages } from './sqlite-wal-pages.ts';
export {
  postgresTestStore,
  sqliteTestStore,
  type TestStore,
  type TestStoreFactory,
  testDatabaseUrl,
  testStoreFactories,
} from './test-stores.ts';
