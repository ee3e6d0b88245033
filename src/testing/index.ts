export { fixedClock } from './fixed-clock.ts';
export { type KubeApiStub, type KubeApiStubOptions, type KubeObject, startKubeApiStub } from './kube-api-stub/index.ts';
export { createLedgerAgent, createLedgerModel, type LedgerRecorder } from './ledger-agent.ts';
export { generateResult } from './mock-model-results.ts';
export { FIXED_PROPERTY_SEED, propertySeeds } from './property-seeds.ts';
export { type HelmMajor, type RealHelmBinaries, realHelmBinaries, realHelmBinary } from './real-helm-binaries.ts';
export {
  postgresTestStore,
  sqliteTestStore,
  type TestStore,
  type TestStoreFactory,
  testDatabaseUrl,
  testStoreFactories,
} from './test-stores.ts';
export { createTestToolContext, type RecordedToolContext, testIdentity } from './tool-context.ts';
