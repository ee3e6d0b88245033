import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../../src/core/audit/index.ts';
import { OpsgateError } from '../../src/core/errors/index.ts';
import { createRuntime, type Runtime } from '../../src/core/runtime/index.ts';
import { createLedgerAgent, createLedgerModel, type LedgerRecorder, type TestStore, testStoreFactories } from '../../src/testing/index.ts';

// Review L2: ten messages sent at once to one session gave 5×503 STORE_RETRY_EXHAUSTED: the turns
// collided on message numbers, which the store retried as a transient conflict up to 12 times.
// A session takes one turn at a time: the others get 409 SESSION_BUSY at once, and are not re-run.
describe.each(testStoreFactories())('messages sent at once to one session on $dialect', (factory) => {
  let handle: TestStore;
  let runtime: Runtime;
  let recorder: LedgerRecorder;
  let modelCalls = 0;

  beforeEach(async () => {
    handle = await factory.create();
    recorder = { reads: 0, transfers: [] };
    const model = createLedgerModel();
    const counting = Object.assign(Object.create(Object.getPrototypeOf(model)), model, {
      doGenerate: async (...args: Parameters<typeof model.doGenerate>) => {
        modelCalls += 1;
        return model.doGenerate(...args);
      },
    }) as typeof model;
    runtime = await createRuntime({ store: handle.store, agents: [createLedgerAgent(recorder)], model: () => counting, env: {} });
    modelCalls = 0;
  });
  afterEach(async () => {
    await runtime.close();
    await handle.dispose();
  });

  it('one turn runs; the others answer 409 SESSION_BUSY, never a store error, and no turn runs twice', async () => {
    const john = { userId: 7, username: 'john_doe', roles: ['user'] };
    const session = await runtime.startSession({ agent: 'ledger', identity: john });
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, () =>
        runtime.send(session.id, 'what is my balance', john).then(
          () => 'ok',
          (error: unknown) => (OpsgateError.isInstance(error) ? `${error.status} ${error.code}` : String(error)),
        ),
      ),
    );
    const kinds = new Set(outcomes);
    expect([...kinds].filter((kind) => kind !== 'ok' && kind !== '409 SESSION_BUSY')).toEqual([]);
    expect(outcomes).toContain('ok');
    const succeeded = outcomes.filter((outcome) => outcome === 'ok').length;
    // Each sent message costs at most its own model steps: no turn was re-run after a conflict.
    expect(modelCalls).toBeLessThanOrEqual(10 * 2);
    const snapshot = await runtime.getSession(session.id, john);
    expect(snapshot.status).toBe('idle');
    expect(snapshot.messages.filter((message) => message.role === 'user')).toHaveLength(succeeded);
    expect((await new AuditLog(handle.store).verify()).ok).toBe(true);
  });
});
