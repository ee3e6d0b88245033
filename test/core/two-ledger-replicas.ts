import { createRuntime, type Runtime } from '../../src/core/runtime/index.ts';
import {
  createLedgerAgent,
  createLedgerModel,
  type LedgerRecorder,
  type TestStore,
  type TestStoreFactory,
} from '../../src/testing/index.ts';

/** Two runtimes (replicas) of the ledger agent on one fresh store; `cleanups` closes them and disposes the store. */
export async function twoLedgerReplicas(
  factory: TestStoreFactory,
  cleanups: Array<() => Promise<void>>,
): Promise<{ testStore: TestStore; recorder: LedgerRecorder; first: Runtime; second: Runtime }> {
  const testStore = await factory.create();
  cleanups.push(() => testStore.dispose());
  const recorder: LedgerRecorder = { reads: 0, transfers: [] };
  const start = () => createRuntime({ store: testStore.store, agents: [createLedgerAgent(recorder)], model: () => createLedgerModel() });
  const first = await start();
  cleanups.push(() => first.close());
  const second = await start();
  cleanups.push(() => second.close());
  return { testStore, recorder, first, second };
}
