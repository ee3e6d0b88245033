import { MockLanguageModelV4 } from 'ai/test';
import type { Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { accessAgent } from '../../src/agents/access/index.ts';
import { EXPIRY_SWEEPER_ACTOR, startExpirySweeper } from '../../src/agents/access/service/index.ts';
import type { AccessDatabase } from '../../src/agents/access/service/schema.ts';
import { AuditLog } from '../../src/core/audit/index.ts';
import type { Identity } from '../../src/core/identity/index.ts';
import { readInterpreterTurn } from '../../src/core/model/index.ts';
import { createRuntime, type Runtime } from '../../src/core/runtime/index.ts';
import { generateResult, type TestStore, testStoreFactories } from '../../src/testing/index.ts';

const john: Identity = { userId: 42, username: 'john_doe', roles: ['user'] };

/** A model that insists on the finance access whatever is asked: the validator must stop it. */
function financeModel(): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doGenerate: async (options) => {
      const turn = readInterpreterTurn(options);
      const last = turn.steps.at(-1);
      if (last?.toolName === 'grant_access_to_user') {
        return generateResult([{ type: 'text', text: `Refused: ${(last.output as { reason?: string }).reason ?? ''}` }]);
      }
      return generateResult([
        {
          type: 'tool-call',
          toolCallId: 'finance-1',
          toolName: 'grant_access_to_user',
          input: JSON.stringify({ access_name: 'BILLING_ADMIN' }),
        },
      ]);
    },
  });
}

describe.each(testStoreFactories())('just-in-time access through the runtime on $dialect', (factory) => {
  let testStore: TestStore;
  let runtime: Runtime | undefined;
  let now = new Date('2026-02-11T10:30:00Z');
  const clock = { now: () => now };

  beforeEach(async () => {
    now = new Date('2026-02-11T10:30:00Z');
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
    runtime = await createRuntime({
      store: testStore.store,
      agents: [accessAgent],
      env: {},
      clock,
      ...(model ? { model: () => model } : {}),
    });
    return runtime;
  };
  /** Grants of a user that are neither revoked nor expired at `now`. */
  const active = async (username: string) =>
    (testStore.store.db as unknown as Kysely<AccessDatabase>)
      .selectFrom('user_accesses as g')
      .innerJoin('accesses as a', 'a.id', 'g.access_id')
      .innerJoin('access_users as u', 'u.id', 'g.user_id')
      .select(['a.name'])
      .where('u.username', '=', username)
      .where('g.revoked_at', 'is', null)
      .execute()
      .then((rows) => rows.map((r) => r.name));

  it('"I need access to the Kubernetes admin console" (engineering) proposes nothing and names eligible accesses', async () => {
    const rt = await start();
    const session = await rt.startSession({ agent: 'access', identity: john });
    const turn = await rt.send(session.id, 'I need access to the Kubernetes admin console', john);
    expect(turn.status).toBe('completed');
    expect(turn.session.toolCalls.map((c) => c.tool)).toEqual(['list_available_accesses', 'get_user_accesses']);
    const answer = turn.messages.at(-1)?.text ?? '';
    expect(answer).toMatch(/^None of the accesses open to your teams \(engineering\) fits/);
    expect(answer).not.toContain('BILLING_ADMIN');
  });

  it('a model proposing a finance access to an engineer is blocked before the approval panel and audited', async () => {
    const rt = await start(financeModel());
    const session = await rt.startSession({ agent: 'access', identity: john });
    const turn = await rt.send(session.id, 'I need access to the Kubernetes admin console', john);
    expect(turn.interrupt).toBeUndefined();
    expect(turn.session.toolCalls.find((c) => c.tool === 'grant_access_to_user')?.status).toBe('blocked');
    expect(turn.messages.at(-1)?.text).toContain('BILLING_ADMIN is for the finance team(s); john_doe is in engineering');
    expect(await active('john_doe')).toEqual([]);
    const blocked = await new AuditLog(testStore.store).list({ sessionId: session.id, type: 'tool_blocked' });
    expect(blocked).toHaveLength(1);
  });

  it('grant with a duration, then revoke end to end: risk and reason on each proposal, approval, execution, audit', async () => {
    const rt = await start();
    const session = await rt.startSession({ agent: 'access', identity: john });
    const ask = await rt.send(session.id, 'I need DB_WRITE_PROD for 2 days because incident 4711', john);
    expect(ask.interrupt).toMatchObject({
      type: 'approval',
      tool: 'grant_access_to_user',
      risk: 'critical',
      riskReason: 'grant DB_WRITE_PROD: production + write access, expires after 2 days',
      args: { access_name: 'DB_WRITE_PROD', duration_days: 2, reason: 'incident 4711' },
    });
    await rt.send(session.id, 'yes', john);
    expect(await active('john_doe')).toEqual(['DB_WRITE_PROD']);

    const revoke = await rt.send(session.id, 'Please revoke DB_WRITE_PROD', john);
    expect(revoke.interrupt).toMatchObject({
      type: 'approval',
      tool: 'revoke_access_from_user',
      risk: 'low',
      riskReason: 'revoke DB_WRITE_PROD: removes a permission, grants nothing',
    });
    expect(await active('john_doe')).toEqual(['DB_WRITE_PROD']);
    const done = await rt.send(session.id, 'yes', john);
    expect(done.messages.at(-1)?.text).toBe("I've revoked your DB_WRITE_PROD access.");
    expect(await active('john_doe')).toEqual([]);

    const audit = new AuditLog(testStore.store);
    const events = await audit.list({ sessionId: session.id });
    const revokeEvents = events.filter((e) => (e.payload as { tool?: string }).tool === 'revoke_access_from_user');
    expect(revokeEvents.map((e) => e.type)).toEqual(['tool_proposed', 'tool_approved', 'tool_executing', 'tool_executed']);
    expect(revokeEvents[0]?.payload).toMatchObject({
      risk: 'low',
      riskReason: 'revoke DB_WRITE_PROD: removes a permission, grants nothing',
    });
    expect(events.find((e) => e.type === 'access_revoked')?.payload).toMatchObject({ access_name: 'DB_WRITE_PROD' });
    expect((await audit.verify()).ok).toBe(true);
  });

  it('an expired grant disappears from get_user_accesses, and the sweeper revokes it with an audit event', async () => {
    const rt = await start();
    const session = await rt.startSession({ agent: 'access', identity: john });
    await rt.send(session.id, 'I need DB_READ_PROD for 1 day', john);
    await rt.send(session.id, 'yes', john);
    const before = await rt.send(session.id, 'What accesses do I have?', john);
    expect(before.messages.at(-1)?.text).toContain('DB_READ_PROD');

    now = new Date('2026-02-12T10:30:01Z');
    const after = await rt.send(session.id, 'What accesses do I have?', john);
    expect(after.messages.at(-1)?.text).toBe('You have no accesses yet.');

    const audit = new AuditLog(testStore.store, clock.now);
    const sweeper = startExpirySweeper({ store: testStore.store, audit, clock, intervalMs: 3_600_000 });
    try {
      const swept = await sweeper.sweepOnce();
      expect(swept.map((g) => [g.username, g.access_name, g.expires_at])).toEqual([['john_doe', 'DB_READ_PROD', '2026-02-12T10:30:00Z']]);
    } finally {
      sweeper.stop();
    }
    expect(await active('john_doe')).toEqual([]);
    const events = await audit.list({ type: 'access_expired_revoked' });
    expect(events.map((e) => [e.actor, (e.payload as { access_name: string }).access_name])).toEqual([
      [EXPIRY_SWEEPER_ACTOR, 'DB_READ_PROD'],
    ]);
    expect((await audit.verify()).ok).toBe(true);
  });
});
