import { MockLanguageModelV4 } from 'ai/test';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { accessAgent } from '../../src/agents/access/index.ts';
import { startAccessBackend } from '../../src/agents/access/service/embedded-service.ts';
import { accessCatalogMigrations, createAccessService, seedAccessDemoData } from '../../src/agents/access/service/index.ts';
import type { AgentSetupContext } from '../../src/core/agent/define-agent.ts';
import { AuditLog } from '../../src/core/audit/index.ts';
import { readInterpreterTurn } from '../../src/core/model/index.ts';
import { createRuntime } from '../../src/core/runtime/index.ts';
import { sqliteTestStore, type TestStore } from '../../src/testing/index.ts';

const SECRET_KEY = 'remote-admin-key-that-must-stay-secret';

function setupContext(testStore: TestStore, env: Record<string, string>): AgentSetupContext {
  return {
    store: testStore.store,
    logger: pino({ level: 'silent' }),
    dataDir: '/tmp',
    env,
    options: {},
    secrets: { get: async () => undefined, set: async () => {}, delete: async () => {} },
    clock: { now: () => new Date() },
  };
}

describe('where the access agent finds its catalog', () => {
  let testStore: TestStore;
  beforeEach(async () => {
    testStore = await sqliteTestStore.create([...accessCatalogMigrations]);
  });
  afterEach(async () => {
    await testStore.dispose();
  });

  it('embedded: serves the seeded catalog on a loopback port and closes it in close()', async () => {
    const backend = await startAccessBackend(setupContext(testStore, {}));
    expect(backend.mode).toBe('embedded');
    expect(backend.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await fetch(`${backend.baseUrl}/users/1/accesses`, { headers: { 'x-username': 'john_doe' } });
    expect(await res.json()).toEqual({ user_id: 1, username: 'john_doe', teams: ['engineering'], accesses: [] });
    await backend.close();
    await expect(fetch(`${backend.baseUrl}/users/1/accesses`, { headers: { 'x-username': 'john_doe' } })).rejects.toThrow();
  });

  describe('remote (ACCESS_API_URL)', () => {
    let service: FastifyInstance;
    let url: string;
    beforeEach(async () => {
      await seedAccessDemoData(testStore.store);
      service = createAccessService({ store: testStore.store, adminKey: SECRET_KEY });
      url = await service.listen({ port: 0, host: '127.0.0.1' });
    });
    afterEach(async () => {
      await service.close();
    });

    it('uses the URL and key given; the key never reaches the model, the messages or the audit', async () => {
      const model = new MockLanguageModelV4({
        doGenerate: async (options) => {
          const turn = readInterpreterTurn(options);
          const content =
            turn.steps.length === 0
              ? [{ type: 'tool-call' as const, toolCallId: 'm-1', toolName: 'list_available_accesses', input: '{}' }]
              : [{ type: 'text' as const, text: `Listed ${(turn.steps[0]!.output as unknown[]).length} accesses.` }];
          return {
            content,
            finishReason: { unified: turn.steps.length === 0 ? ('tool-calls' as const) : ('stop' as const), raw: undefined },
            usage: {
              inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
              outputTokens: { total: 1, text: 1, reasoning: 0 },
            },
            warnings: [],
          };
        },
      });
      const runtime = await createRuntime({
        store: testStore.store,
        agents: [accessAgent],
        env: { ACCESS_API_URL: url, ACCESS_ADMIN_KEY: SECRET_KEY },
        model: () => model,
      });
      try {
        const john = { userId: 5, username: 'john_doe', roles: ['user'] };
        const session = await runtime.startSession({ agent: 'access', identity: john });
        const turn = await runtime.send(session.id, 'What accesses are available?', john);
        expect(turn.messages.at(-1)?.text).toBe('Listed 12 accesses.');
        const everything = JSON.stringify([model.doGenerateCalls, turn.session, await new AuditLog(testStore.store).list({})]);
        expect(everything).not.toContain(SECRET_KEY);
      } finally {
        await runtime.close();
      }
    });

    it('remote mode uses ACCESS_API_URL and ACCESS_ADMIN_KEY as given (a wrong key gets 401)', async () => {
      const backend = await startAccessBackend(setupContext(testStore, { ACCESS_API_URL: url, ACCESS_ADMIN_KEY: 'not-the-key' }));
      expect(backend.mode).toBe('remote');
      const res = await fetch(`${backend.baseUrl}/admin/accesses`, { headers: { 'x-admin-key': backend.adminKey } });
      expect(res.status).toBe(401);
      await backend.close();
    });
  });
});
