import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockLanguageModelV4 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/core/agent/index.ts';
import { AuditLog } from '../../src/core/audit/index.ts';
import type { Identity } from '../../src/core/identity/index.ts';
import { DEFAULT_POLICY_DIR } from '../../src/core/policy/index.ts';
import { createRuntime, type Runtime } from '../../src/core/runtime/index.ts';
import { createLedgerAgent, createLedgerModel, fixedClock, generateResult, type LedgerRecorder } from '../../src/testing/index.ts';
import { sqliteTestStore, type TestStore } from '../../src/testing/test-stores.ts';

// The one door (authorize-decision.ts) through the runtime: who may withdraw, what a refusal
// records and says, and the door a decision without a named channel is recorded as.
const paula: Identity = { userId: 7, username: 'paula', roles: ['user'], channel: 'web' };
const alice: Identity = { userId: 1, username: 'alice', roles: ['approver'], channel: 'web' };

describe('the decision authorizer through the runtime', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function start(
    policy?: string,
    options: { clock?: Clock; approvalTtlMs?: number; model?: () => MockLanguageModelV4 } = {},
  ): Promise<{ runtime: Runtime; store: TestStore; recorder: LedgerRecorder }> {
    const store = await sqliteTestStore.create();
    cleanups.push(() => store.dispose());
    let policyDir: string | undefined;
    if (policy) {
      policyDir = mkdtempSync(join(tmpdir(), 'opsgate-policy-'));
      cpSync(DEFAULT_POLICY_DIR, policyDir, { recursive: true });
      writeFileSync(join(policyDir, 'extra.cedar'), policy);
      const dir = policyDir;
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    }
    const recorder: LedgerRecorder = { reads: 0, transfers: [] };
    const runtime = await createRuntime({
      store: store.store,
      agents: [createLedgerAgent(recorder)],
      model: options.model ?? (() => createLedgerModel()),
      ...(policyDir ? { policyDir } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.approvalTtlMs ? { approvalTtlMs: options.approvalTtlMs } : {}),
    });
    cleanups.push(() => runtime.close());
    return { runtime, store, recorder };
  }

  it('only the requester withdraws a request; an approver is told to reject it instead', async () => {
    const { runtime, recorder } = await start();
    const session = await runtime.startSession({ agent: 'ledger', identity: paula });
    const turn = await runtime.send(session.id, 'pay bob 11', paula);
    const callId = turn.interrupt!.callId;
    const refused = await runtime.decide(session.id, { type: 'withdraw', callId }, alice).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'DECISION_INVALID' });
    expect((refused as Error).message).toContain('Only paula, who asked for this, can withdraw it. An approver rejects it instead');
    expect((await runtime.getSession(session.id, paula)).toolCalls.find((call) => call.id === callId)?.status).toBe('proposed');
    await runtime.decide(session.id, { type: 'withdraw', callId }, paula);
    expect((await runtime.getSession(session.id, paula)).toolCalls.find((call) => call.id === callId)?.status).not.toBe('proposed');
    expect(recorder.transfers).toEqual([]);
  });

  it('a refused approval is audited with the policy, its reason and the door, and says when nobody may approve', async () => {
    const { runtime, store, recorder } = await start(
      '@id("nobody-approves-transfers")\n@reason("transfers are frozen")\nforbid (principal, action == Opsgate::Action::"approve", resource)\nwhen { context.tool == "transfer" };\n',
    );
    const session = await runtime.startSession({ agent: 'ledger', identity: paula });
    const turn = await runtime.send(session.id, 'pay bob 12', paula);
    const callId = turn.interrupt!.callId;
    const refused = await runtime.decide(session.id, { type: 'approve', callId }, alice).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'APPROVAL_REFUSED', fields: { policyId: 'nobody-approves-transfers', eligibleApprovers: [] } });
    expect((refused as Error).message).toContain('nobody under the current policy; ask an admin');
    expect(recorder.transfers).toEqual([]);
    const [event] = await new AuditLog(store.store).list({ type: 'approval_refused' });
    expect(event).toMatchObject({
      actor: 'user:alice',
      payload: {
        callId,
        tool: 'transfer',
        policyId: 'nobody-approves-transfers',
        reason: 'transfers are frozen',
        eligibleApprovers: [],
        channel: 'web',
      },
    });
    expect((await runtime.getSession(session.id, paula)).waiting).toBe(true);
  });

  it('a decision that names no door is recorded as REST, with the issuer of a borrowed credential', async () => {
    const { runtime, store } = await start();
    const session = await runtime.startSession({ agent: 'ledger', identity: paula });
    const turn = await runtime.send(session.id, 'pay bob 13', paula);
    const { channel: _channel, ...noDoor } = alice;
    await runtime.decide(session.id, { type: 'reject', callId: turn.interrupt!.callId, reason: 'no' }, noDoor);
    const [event] = await new AuditLog(store.store).list({ type: 'tool_rejected' });
    expect(event?.payload).toMatchObject({ channel: 'rest' });
    expect(event?.payload).not.toHaveProperty('credentialIssuedBy');
  });

  it('a withdrawal is recorded with the door it came through', async () => {
    const { runtime, store } = await start();
    const session = await runtime.startSession({ agent: 'ledger', identity: paula });
    const turn = await runtime.send(session.id, 'pay bob 14', paula);
    await runtime.decide(session.id, { type: 'withdraw', callId: turn.interrupt!.callId }, { ...paula, channel: 'chat' });
    const [event] = await new AuditLog(store.store).list({ type: 'tool_rejected' });
    expect(event?.payload).toMatchObject({ withdrawn: true, channel: 'chat' });
  });

  it('a decision that names no door is decided by the policy as a REST decision', async () => {
    const { runtime, recorder } = await start(
      '@id("no-transfer-approvals-over-rest")\nforbid (principal, action == Opsgate::Action::"approve", resource)\nwhen { context.tool == "transfer" && context.channel == "rest" };\n',
    );
    const session = await runtime.startSession({ agent: 'ledger', identity: paula });
    const turn = await runtime.send(session.id, 'pay bob 15', paula);
    const { channel: _channel, ...noDoor } = alice;
    await expect(runtime.decide(session.id, { type: 'approve', callId: turn.interrupt!.callId }, noDoor)).rejects.toMatchObject({
      code: 'APPROVAL_REFUSED',
      fields: { policyId: 'no-transfer-approvals-over-rest' },
    });
    await runtime.decide(session.id, { type: 'approve', callId: turn.interrupt!.callId }, alice);
    expect(recorder.transfers).toHaveLength(1);
  });

  it('the first of two approvals is audited and announced with the approvals so far, and the call keeps waiting', async () => {
    const { runtime, store, recorder } = await start(
      '@id("two-approvers-for-transfers")\npermit (principal, action == Opsgate::Action::"requireSecondApprover", resource)\nwhen { context.tool == "transfer" };\n',
    );
    const session = await runtime.startSession({ agent: 'ledger', identity: paula });
    const turn = await runtime.send(session.id, 'pay bob 16', paula);
    const callId = turn.interrupt!.callId;
    const first = await runtime.decide(session.id, { type: 'approve', callId }, alice);
    expect(first).toMatchObject({ status: 'waiting', interrupt: { callId, approvals: ['alice'], requiredApprovals: 2 } });
    expect(recorder.transfers).toEqual([]);
    const [recorded] = await new AuditLog(store.store).list({ type: 'approval_recorded' });
    expect(recorded).toMatchObject({ actor: 'user:alice' });
    expect(recorded?.payload).toEqual({
      callId,
      tool: 'transfer',
      policyId: 'approvers-approve',
      approvals: ['alice'],
      requiredApprovals: 2,
      channel: 'web',
    });
    const decisions = (await runtime.events.since(session.id, 0)).filter((event) => event.type === 'decision');
    expect(decisions.map((event) => event.data)).toEqual([
      { callId, decision: 'approve', by: 'alice', approvals: ['alice'], waiting: true },
    ]);
  });

  it('an approval that came too late is recorded with its expiry, tells the model why, and drops the rest of the step', async () => {
    const clock = fixedClock('2026-11-27T05:00:00.000Z');
    // A model that proposes two transfers in one step, then answers.
    const twoTransfers = () =>
      new MockLanguageModelV4({
        doGenerate: async (options) =>
          options.prompt.some((message) => message.role === 'tool')
            ? generateResult([{ type: 'text', text: 'ok' }])
            : generateResult([
                { type: 'tool-call', toolCallId: 'first', toolName: 'transfer', input: JSON.stringify({ to: 'bob', amount: 17 }) },
                { type: 'tool-call', toolCallId: 'second', toolName: 'transfer', input: JSON.stringify({ to: 'eve', amount: 18 }) },
              ]),
      });
    const { runtime, store, recorder } = await start(undefined, { clock, approvalTtlMs: 60_000, model: twoTransfers });
    const session = await runtime.startSession({ agent: 'ledger', identity: paula });
    const turn = await runtime.send(session.id, 'pay twice', paula);
    const callId = turn.interrupt!.callId;
    const expiresAt = '2026-11-27T05:01:00.000Z';
    // A second after the expiry, so the error names the expiry and not the moment of the decision.
    clock.advance(61_000);
    const refused = await runtime.decide(session.id, { type: 'approve', callId }, alice).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'APPROVAL_EXPIRED', fields: { tool: 'transfer', expiresAt } });
    expect((refused as Error).message).toBe(
      `The approval request for transfer expired at ${expiresAt}. Ask the agent to propose the call again.`,
    );
    expect(recorder.transfers).toEqual([]);
    const [expired] = await new AuditLog(store.store).list({ type: 'tool_expired' });
    expect(expired).toMatchObject({ actor: 'user:alice', payload: { callId, tool: 'transfer', expiresAt } });
    const row = await store.store.db.selectFrom('tool_calls').select(['status', 'decided_at']).where('id', '=', callId).executeTakeFirst();
    expect(row).toEqual({ status: 'expired', decided_at: '2026-11-27T05:01:01.000Z' });
    const after = await runtime.getSession(session.id, paula);
    expect(after.status).toBe('idle');
    expect(after.messages.filter((message) => message.role === 'tool').map((message) => message.text)).toEqual([
      `The approval request expired at ${expiresAt}; the call did not run.`,
      'not run: an earlier call in the same step expired',
    ]);
  });
});
