import { MockLanguageModelV4 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ITERATIONS, troubleshootAgent } from '../../src/agents/troubleshoot/index.ts';
import { troubleshootMigrations } from '../../src/agents/troubleshoot/store/migrations.ts';
import type { Identity } from '../../src/core/identity/index.ts';
import { createRuntime, type Runtime } from '../../src/core/runtime/index.ts';
import { sqliteTestStore, type TestStore } from '../../src/testing/test-stores.ts';
import { MemorySecretStore } from './helpers.ts';

const alice: Identity = { userId: 1, username: 'alice', roles: ['user'] };

// AR-17 holds the troubleshoot agent itself to 20 steps, whatever the runtime-wide limit
// (`OPSGATE_STEP_LIMIT`) allows other agents.
describe('AR-17 the troubleshoot agent stops at 20 steps', () => {
  let testStore: TestStore;
  let runtime: Runtime;
  const looping = new MockLanguageModelV4({
    doGenerate: async () => ({
      content: [{ type: 'tool-call', toolCallId: 'x', toolName: 'list_hosts', input: '{}' }],
      finishReason: { unified: 'tool-calls', raw: undefined },
      usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
      warnings: [],
    }),
  });

  beforeAll(async () => {
    testStore = await sqliteTestStore.create(troubleshootMigrations);
    runtime = await createRuntime({
      store: testStore.store,
      agents: [troubleshootAgent],
      secrets: new MemorySecretStore(),
      stepLimit: 50,
      model: () => looping,
    });
  });
  afterAll(async () => {
    await runtime?.close();
    await testStore?.dispose();
  });

  it('AR-17 a looping model is stopped after MAX_ITERATIONS steps although the runtime allows 50', async () => {
    const session = await runtime.startSession({ agent: 'troubleshoot', identity: alice });
    const turn = await runtime.send(session.id, 'keep listing hosts', alice);
    expect(turn.status).toBe('step_limit');
    expect(looping.doGenerateCalls).toHaveLength(MAX_ITERATIONS);
    expect(MAX_ITERATIONS).toBe(20);
    expect(turn.messages.at(-1)?.text).toMatch(/Stopped after 20 steps/);
  });
});
