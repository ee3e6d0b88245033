import type { LanguageModelV4CallOptions, LanguageModelV4Content } from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';
import type { Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { accessAgent } from '../../src/agents/access/index.ts';
import type { AccessDatabase } from '../../src/agents/access/service/schema.ts';
import { AuditLog } from '../../src/core/audit/index.ts';
import type { Identity } from '../../src/core/identity/index.ts';
import { readInterpreterTurn } from '../../src/core/model/index.ts';
import type { Runtime } from '../../src/core/runtime/index.ts';
import { createRuntime } from '../../src/core/runtime/index.ts';
import { generateResult, type TestStore, testStoreFactories } from '../../src/testing/index.ts';

/** The login id (42) differs from john_doe's catalog id (1) on purpose. */
const john: Identity = { userId: 42, username: 'john_doe', roles: ['user'] };

let counter = 0;
const call = (toolName: string, input: unknown): LanguageModelV4Content => ({
  type: 'tool-call',
  toolCallId: `mock-${++counter}`,
  toolName,
  input: JSON.stringify(input),
});
const text = (value: string): LanguageModelV4Content => ({ type: 'text', text: value });

/**
 * A scripted model that calls the tools the way the spec's examples do (with `user_id=1` and the
 * username), deciding from the prompt alone.
 */
function scriptedModel(options: { grantUserId?: number } = {}): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doGenerate: async (callOptions: LanguageModelV4CallOptions) => {
      const turn = readInterpreterTurn(callOptions);
      const names = turn.steps.map((s) => s.toolName);
      const last = turn.steps.at(-1);
      const user = turn.userText;
      const grant = (name: string, say: string) =>
        generateResult([
          text(say),
          call('grant_access_to_user', { user_id: options.grantUserId ?? 1, access_name: name, username: 'john_doe' }),
        ]);
      if (last?.toolName === 'grant_access_to_user') {
        const output = last.output as {
          success?: boolean;
          access?: { name: string };
          message?: string;
          blocked?: boolean;
          reason?: string;
        };
        if (last.isError) return generateResult([text(`I could not do that: ${output.reason ?? JSON.stringify(output)}`)]);
        return generateResult([
          text(output.success ? `I've granted you ${output.access!.name} access.` : `The grant failed: ${output.message}`),
        ]);
      }
      if (/engineering team/i.test(user)) {
        if (names.length === 0) return generateResult([call('list_available_accesses', { team: 'engineering' })]);
        const list = last!.output as Array<{ name: string; description: string }>;
        return generateResult([text(`For the engineering team, here are the available accesses: ${list.map((a) => a.name).join(', ')}`)]);
      }
      if (/production, read only/i.test(user)) return grant('DB_READ_PROD', 'I found DB_READ_PROD access. Would you like me to grant it?');
      if (names.length === 0) return generateResult([call('list_available_accesses', {})]);
      if (/database access/i.test(user)) {
        return generateResult([
          text(
            'I found multiple database accesses. Which environment do you need: development, staging, or production? And do you need read or write access?',
          ),
        ]);
      }
      if (names.length === 1) return generateResult([call('get_user_accesses', { user_id: 1, username: 'john_doe' })]);
      return grant('READ_DOCUMENTS', 'I found READ_DOCUMENTS access. Would you like me to grant it?');
    },
  });
}

describe.each(testStoreFactories())('access agent through the runtime on $dialect', (factory) => {
  let testStore: TestStore;
  let runtime: Runtime | undefined;

  beforeEach(async () => {
    testStore = await factory.create();
  });
  afterEach(async () => {
    await runtime?.close();
    runtime = undefined;
    await testStore.store.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await testStore.dispose();
  });

  const start = async (model?: MockLanguageModelV4) => {
    runtime = await createRuntime({ store: testStore.store, agents: [accessAgent], env: {}, ...(model ? { model: () => model } : {}) });
    return runtime;
  };
  const held = async (username: string) =>
    (testStore.store.db as unknown as Kysely<AccessDatabase>)
      .selectFrom('user_accesses as g')
      .innerJoin('accesses as a', 'a.id', 'g.access_id')
      .innerJoin('access_users as u', 'u.id', 'g.user_id')
      .select(['a.name'])
      .where('u.username', '=', username)
      .execute()
      .then((rows) => rows.map((r) => r.name));

  describe.each([
    ['the offline interpreter', undefined],
    ['a scripted mock model', scriptedModel],
  ] as const)('with %s', (_label, makeModel) => {
    it('flow 1: "I need access to read documents" → proposal → "Yes please" → granted, audited with the approver', async () => {
      const rt = await start(makeModel?.());
      const session = await rt.startSession({ agent: 'access', identity: john });
      const turn = await rt.send(session.id, 'I need access to read documents', john);
      expect(turn.status).toBe('waiting');
      expect(turn.interrupt).toMatchObject({
        type: 'approval',
        tool: 'grant_access_to_user',
        text: 'I found READ_DOCUMENTS access. Would you like me to grant it?',
      });
      expect(turn.interrupt?.type === 'approval' && turn.interrupt.args).toMatchObject({
        access_name: 'READ_DOCUMENTS',
        username: 'john_doe',
      });
      expect(turn.interrupt?.type === 'approval' && turn.interrupt.preview?.summary).toContain('View documents in the system');
      expect(turn.session.toolCalls.map((c) => [c.tool, c.status])).toEqual([
        ['list_available_accesses', 'executed'],
        ['get_user_accesses', 'executed'],
        ['grant_access_to_user', 'proposed'],
      ]);
      expect(await held('john_doe')).toEqual([]);

      const done = await rt.send(session.id, 'Yes please', john);
      expect(done.status).toBe('completed');
      expect(done.messages.at(-1)?.text).toBe("I've granted you READ_DOCUMENTS access.");
      expect(await held('john_doe')).toEqual(['READ_DOCUMENTS']);

      const events = await new AuditLog(testStore.store).list({ sessionId: session.id });
      const grantEvents = events.filter((e) => (e.payload as { tool?: string }).tool === 'grant_access_to_user').map((e) => e.type);
      expect(grantEvents).toEqual(['tool_proposed', 'tool_approved', 'tool_executing', 'tool_executed']);
      const approved = events.find((e) => e.type === 'tool_approved');
      expect(approved?.payload).toMatchObject({ approver: 'john_doe' });
      expect(events.some((e) => e.type === 'access_granted')).toBe(true);
      expect(JSON.stringify(events)).not.toMatch(/x-admin-key|ACCESS_ADMIN_KEY/i);
      expect((await new AuditLog(testStore.store).verify()).ok).toBe(true);
    });

    it('flow 2: "I need database access" → asks → "Production, read only" → DB_READ_PROD after approval', async () => {
      const rt = await start(makeModel?.());
      const session = await rt.startSession({ agent: 'access', identity: john });
      const ask = await rt.send(session.id, 'I need database access', john);
      expect(ask.status).toBe('completed');
      expect(ask.messages.at(-1)?.text).toBe(
        'I found multiple database accesses. Which environment do you need: development, staging, or production? And do you need read or write access?',
      );
      expect(ask.session.toolCalls.some((c) => c.tool === 'grant_access_to_user')).toBe(false);
      const proposal = await rt.send(session.id, 'Production, read only', john);
      expect(proposal.status).toBe('waiting');
      expect(proposal.interrupt?.type === 'approval' && proposal.interrupt.args).toMatchObject({ access_name: 'DB_READ_PROD' });
      expect(proposal.interrupt?.type === 'approval' && proposal.interrupt.preview?.summary).toContain('Renewal period: 30 days');
      const done = await rt.send(session.id, 'yes', john);
      expect(done.messages.at(-1)?.text).toBe("I've granted you DB_READ_PROD access.");
      expect(await held('john_doe')).toEqual(['DB_READ_PROD']);
    });

    it('flow 3: "What accesses are available for the engineering team?" lists by team and grants nothing', async () => {
      const rt = await start(makeModel?.());
      const session = await rt.startSession({ agent: 'access', identity: john });
      const turn = await rt.send(session.id, 'What accesses are available for the engineering team?', john);
      expect(turn.status).toBe('completed');
      expect(turn.messages.at(-1)?.text).toMatch(/^For the engineering team, here are the available accesses:/);
      expect(turn.messages.at(-1)?.text).toContain('DB_WRITE_PROD');
      expect(turn.messages.at(-1)?.text).not.toContain('BILLING_ADMIN');
      expect(turn.session.toolCalls.map((c) => c.tool)).toEqual(['list_available_accesses']);
      expect(await held('john_doe')).toEqual([]);
    });
  });

  it('a model naming another catalog user is blocked before approval and nothing is granted', async () => {
    const rt = await start(scriptedModel({ grantUserId: 2 }));
    const session = await rt.startSession({ agent: 'access', identity: john });
    const turn = await rt.send(session.id, 'I need access to read documents', john);
    expect(turn.status).toBe('completed');
    expect(turn.session.toolCalls.find((c) => c.tool === 'grant_access_to_user')?.status).toBe('blocked');
    expect(turn.messages.at(-1)?.text).toContain('is not the catalog account of john_doe');
    expect(await held('john_doe')).toEqual([]);
    expect(await held('jane_smith')).toEqual([]);
  });

  it('rejecting the proposal grants nothing', async () => {
    const rt = await start();
    const session = await rt.startSession({ agent: 'access', identity: john });
    await rt.send(session.id, 'I need to write documents', john);
    const done = await rt.send(session.id, 'no', john);
    expect(done.messages.at(-1)?.text).toBe('Okay, I did not grant WRITE_DOCUMENTS access.');
    expect(await held('john_doe')).toEqual([]);
  });
});
