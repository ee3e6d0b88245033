import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockLanguageModelV4 } from 'ai/test';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../../src/core/audit/index.ts';
import type { Identity } from '../../src/core/identity/index.ts';
import { DEFAULT_POLICY_DIR } from '../../src/core/policy/index.ts';
import { createRuntime } from '../../src/core/runtime/create-runtime.ts';
import type { RuntimeOptions } from '../../src/core/runtime/runtime-api.ts';
import {
  createLedgerAgent,
  createLedgerModel,
  fixedClock,
  type LedgerRecorder,
  type TestStore,
  testStoreFactories,
} from '../../src/testing/index.ts';

const alice: Identity = { userId: 1, username: 'alice', roles: ['user'] };
const bob: Identity = { userId: 2, username: 'bob', roles: ['user'] };
const approver: Identity = { userId: 3, username: 'carol', roles: ['approver'] };

describe.each(testStoreFactories())('guarded runtime on $dialect', (factory) => {
  let testStore: TestStore;
  let recorder: LedgerRecorder;

  beforeEach(async () => {
    testStore = await factory.create();
    recorder = { reads: 0, transfers: [] };
  });
  afterEach(async () => {
    await testStore.dispose();
  });

  const start = (overrides: Partial<RuntimeOptions> = {}) =>
    createRuntime({ store: testStore.store, agents: [createLedgerAgent(recorder)], model: () => createLedgerModel(), ...overrides });

  it('runs the read-only call at once and pauses the mutable one until approved after a restart; it runs exactly once', async () => {
    const first = await start();
    const session = await first.startSession({ agent: 'ledger', identity: alice });
    const turn = await first.send(session.id, 'pay bob 30', alice);
    expect(turn.status).toBe('waiting');
    expect(recorder.reads).toBe(1);
    expect(recorder.transfers).toHaveLength(0);
    expect(turn.interrupt).toMatchObject({
      type: 'approval',
      tool: 'transfer',
      args: { to: 'bob', amount: 30, user_id: 1 },
      risk: 'medium',
      policyId: 'state-changes-need-approval',
      requiredApprovals: 1,
    });
    await first.close();

    const second = await start();
    const resumed = await second.getSession(session.id, alice);
    expect(resumed.interrupt?.type).toBe('approval');
    const done = await second.decide(session.id, { type: 'approve', callId: resumed.interrupt!.callId }, alice);
    expect(done.status).toBe('completed');
    expect(recorder.transfers).toEqual([{ to: 'bob', amount: 30, user_id: 1 }]);
    expect(done.messages.at(-1)?.text).toContain('"transferred":30');

    await expect(second.decide(session.id, { type: 'approve', callId: resumed.interrupt!.callId }, alice)).rejects.toMatchObject({
      code: 'NO_PENDING_INTERRUPT',
    });
    expect(recorder.transfers).toHaveLength(1);
    const types = (await new AuditLog(testStore.store).list({ sessionId: session.id })).map((e) => e.type);
    expect(types).toEqual(['session_started', 'tool_executed', 'tool_proposed', 'tool_approved', 'tool_executing', 'tool_executed']);
  });

  it('arguments changed after the proposal (in the store) void the approval: typed failure, the tool never runs', async () => {
    const runtime = await start();
    const session = await runtime.startSession({ agent: 'ledger', identity: alice });
    const turn = await runtime.send(session.id, 'pay bob 30', alice);
    await testStore.store.db
      .updateTable('tool_calls')
      .set({ args: JSON.stringify({ to: 'mallory', amount: 30000, user_id: 1 }) })
      .where('id', '=', turn.interrupt!.callId)
      .execute();
    const done = await runtime.decide(session.id, { type: 'approve', callId: turn.interrupt!.callId }, alice);
    expect(recorder.transfers).toHaveLength(0);
    expect(done.session.toolCalls.find((c) => c.tool === 'transfer')?.status).toBe('failed');
    expect(done.messages.some((m) => m.role === 'tool' && /APPROVAL_BINDING_MISMATCH/.test(m.text))).toBe(true);
  });

  it('reject: the tool never runs and the model sees the reason', async () => {
    const model = createLedgerModel();
    const runtime = await start({ model: () => model });
    const session = await runtime.startSession({ agent: 'ledger', identity: alice });
    const turn = await runtime.send(session.id, 'pay bob 30', alice);
    const done = await runtime.decide(session.id, { type: 'reject', callId: turn.interrupt!.callId, reason: 'not this month' }, alice);
    expect(done.status).toBe('completed');
    expect(recorder.transfers).toHaveLength(0);
    const lastPrompt = JSON.stringify(model.doGenerateCalls.at(-1)?.prompt);
    expect(lastPrompt).toContain('not this month');
    expect(done.session.toolCalls.find((c) => c.tool === 'transfer')?.status).toBe('rejected');
  });

  it('modify: the edited arguments run, re-validated, and the audit shows both', async () => {
    const runtime = await start();
    const session = await runtime.startSession({ agent: 'ledger', identity: alice });
    const turn = await runtime.send(session.id, 'pay bob 30', alice);
    await expect(
      runtime.decide(session.id, { type: 'modify', callId: turn.interrupt!.callId, args: { to: 'bob', amount: -5 } }, alice),
    ).rejects.toMatchObject({ code: 'INVALID_TOOL_INPUT' });
    const done = await runtime.decide(
      session.id,
      { type: 'modify', callId: turn.interrupt!.callId, args: { to: 'bob', amount: 20 } },
      alice,
    );
    expect(recorder.transfers).toEqual([{ to: 'bob', amount: 20, user_id: 1 }]);
    expect(done.status).toBe('completed');
    const modified = (await new AuditLog(testStore.store).list({ sessionId: session.id, type: 'tool_modified' }))[0];
    expect(modified?.payload).toMatchObject({ from: { amount: 30 }, to: { amount: 20 } });
  });

  it('refuses a model call naming another user, and nothing runs', async () => {
    const runtime = await start({ model: () => createLedgerModel({ userId: 2 }) });
    const session = await runtime.startSession({ agent: 'ledger', identity: alice });
    const turn = await runtime.send(session.id, 'pay bob 30', alice);
    expect(turn.status).toBe('completed');
    expect(recorder.transfers).toHaveLength(0);
    const blocked = turn.session.toolCalls.find((c) => c.tool === 'transfer');
    expect(blocked?.status).toBe('blocked');
    expect(blocked?.error).toMatch(/user_id=2/);
  });

  it('user B can neither read nor decide user A’s session; an approver can', async () => {
    const runtime = await start();
    const session = await runtime.startSession({ agent: 'ledger', identity: alice });
    const turn = await runtime.send(session.id, 'pay bob 30', alice);
    await expect(runtime.getSession(session.id, bob)).rejects.toMatchObject({ code: 'SESSION_FORBIDDEN' });
    await expect(runtime.decide(session.id, { type: 'approve', callId: turn.interrupt!.callId }, bob)).rejects.toMatchObject({
      code: 'SESSION_FORBIDDEN',
    });
    await expect(runtime.send(session.id, 'yes', bob)).rejects.toMatchObject({ code: 'SESSION_FORBIDDEN' });
    expect(recorder.transfers).toHaveLength(0);
    expect(await runtime.listSessions(bob)).toHaveLength(0);
    const done = await runtime.decide(session.id, { type: 'approve', callId: turn.interrupt!.callId }, approver);
    expect(done.session.toolCalls.find((c) => c.tool === 'transfer')?.approvedBy).toBe('carol');
    const refused = await new AuditLog(testStore.store).list({ sessionId: session.id, type: 'approval_refused' });
    expect(refused).toMatchObject([{ actor: 'user:bob', payload: { callId: turn.interrupt!.callId } }]);
  });

  it('a plain "yes" in chat approves the pending call; "no" rejects it', async () => {
    const runtime = await start();
    const session = await runtime.startSession({ agent: 'ledger', identity: alice });
    await runtime.send(session.id, 'pay bob 30', alice);
    await runtime.send(session.id, 'yes please', alice);
    expect(recorder.transfers).toHaveLength(1);
    await runtime.send(session.id, 'pay bob 40', alice);
    await runtime.send(session.id, 'no, too much', alice);
    expect(recorder.transfers).toHaveLength(1);
  });

  it('a policy that forbids self-approval refuses the requester with a typed, audited error', async () => {
    const policyDir = mkdtempSync(join(tmpdir(), 'opsgate-policy-'));
    cpSync(DEFAULT_POLICY_DIR, policyDir, { recursive: true });
    writeFileSync(
      join(policyDir, 'transfers.cedar'),
      '@id("no-self-approved-transfers")\nforbid (principal, action == Opsgate::Action::"approve", resource)\nwhen { context.tool == "transfer" && principal == context.requester };\n',
    );
    const runtime = await start({ policyDir });
    const session = await runtime.startSession({ agent: 'ledger', identity: { ...alice, roles: ['approver'] } });
    const turn = await runtime.send(session.id, 'pay bob 30', { ...alice, roles: ['approver'] });
    await expect(
      runtime.decide(session.id, { type: 'approve', callId: turn.interrupt!.callId }, { ...alice, roles: ['approver'] }),
    ).rejects.toMatchObject({ code: 'APPROVAL_REFUSED', status: 403, fields: { policyId: 'no-self-approved-transfers' } });
    expect(recorder.transfers).toHaveLength(0);
    await runtime.decide(session.id, { type: 'approve', callId: turn.interrupt!.callId }, approver);
    expect(recorder.transfers).toHaveLength(1);
    rmSync(policyDir, { recursive: true, force: true });
  });

  it('a policy asking for two approvers keeps the call waiting after the first, refuses the same person twice, and runs after the second', async () => {
    const policyDir = mkdtempSync(join(tmpdir(), 'opsgate-policy-'));
    cpSync(DEFAULT_POLICY_DIR, policyDir, { recursive: true });
    writeFileSync(
      join(policyDir, 'two.cedar'),
      '@id("two-approvers-for-transfers")\npermit (principal, action == Opsgate::Action::"requireSecondApprover", resource)\nwhen { context.tool == "transfer" };\n',
    );
    const runtime = await start({ policyDir });
    const session = await runtime.startSession({ agent: 'ledger', identity: alice });
    const turn = await runtime.send(session.id, 'pay bob 30', alice);
    expect(turn.interrupt).toMatchObject({ policyId: 'two-approvers-for-transfers', requiredApprovals: 2, approvals: [] });
    // An edit never counts as an approval: the edited call is a new proposal that needs both people.
    const edited = await runtime.decide(
      session.id,
      { type: 'modify', callId: turn.interrupt!.callId, args: { to: 'bob', amount: 25, user_id: 1 } },
      approver,
    );
    expect(edited.status).toBe('waiting');
    expect(edited.interrupt).toMatchObject({ args: { amount: 25 }, requiredApprovals: 2, approvals: [] });
    expect(recorder.transfers).toHaveLength(0);
    const callId = edited.interrupt!.callId;
    const first = await runtime.decide(session.id, { type: 'approve', callId }, approver);
    expect(first.status).toBe('waiting');
    expect(first.interrupt).toMatchObject({ callId, approvals: ['carol'] });
    expect(recorder.transfers).toHaveLength(0);
    await expect(runtime.decide(session.id, { type: 'approve', callId }, approver)).rejects.toMatchObject({
      code: 'APPROVAL_REFUSED',
      fields: { policyId: 'sod-distinct-approvers' },
    });
    const dave: Identity = { userId: 4, username: 'dave', roles: ['approver'] };
    const done = await runtime.decide(session.id, { type: 'approve', callId }, dave);
    expect(done.status).toBe('completed');
    expect(recorder.transfers).toHaveLength(1);
    const types = (await new AuditLog(testStore.store).list({ sessionId: session.id })).map((event) => event.type);
    expect(types.filter((type) => ['approval_recorded', 'approval_refused', 'tool_approved'].includes(type))).toEqual([
      'approval_recorded',
      'approval_refused',
      'tool_approved',
    ]);
    rmSync(policyDir, { recursive: true, force: true });
  });

  it('a forbid in the policy blocks the call before any approval, and the audit names the policy', async () => {
    const policyDir = mkdtempSync(join(tmpdir(), 'opsgate-policy-'));
    cpSync(DEFAULT_POLICY_DIR, policyDir, { recursive: true });
    writeFileSync(
      join(policyDir, 'freeze.cedar'),
      '@id("transfer-freeze")\n@reason("transfers are frozen this quarter")\nforbid (principal, action == Opsgate::Action::"call", resource)\nwhen { context.tool == "transfer" };\n',
    );
    const runtime = await start({ policyDir });
    const session = await runtime.startSession({ agent: 'ledger', identity: alice });
    const turn = await runtime.send(session.id, 'pay bob 30', alice);
    expect(turn.interrupt).toBeUndefined();
    expect(turn.session.toolCalls.find((c) => c.tool === 'transfer')?.status).toBe('blocked');
    expect(recorder.transfers).toHaveLength(0);
    const blocked = (await new AuditLog(testStore.store).list({ sessionId: session.id, type: 'tool_blocked' }))[0];
    expect(blocked?.payload).toMatchObject({ tool: 'transfer', reason: 'transfers are frozen this quarter', policyId: 'transfer-freeze' });
    rmSync(policyDir, { recursive: true, force: true });
  });

  it('expired approvals cannot be approved', async () => {
    const clock = fixedClock();
    const runtime = await start({ clock, approvalTtlMs: 60_000 });
    const session = await runtime.startSession({ agent: 'ledger', identity: alice });
    const turn = await runtime.send(session.id, 'pay bob 30', alice);
    clock.advance(61_000);
    await expect(runtime.decide(session.id, { type: 'approve', callId: turn.interrupt!.callId }, alice)).rejects.toMatchObject({
      code: 'APPROVAL_EXPIRED',
    });
    expect(recorder.transfers).toHaveLength(0);
    const after = await runtime.getSession(session.id, alice);
    expect(after.toolCalls.find((c) => c.tool === 'transfer')?.status).toBe('expired');
    expect(after.status).toBe('idle');
  });

  it('stops a looping model at the step limit (default 20) with a clear message', async () => {
    const looping = new MockLanguageModelV4({
      doGenerate: async () => ({
        content: [{ type: 'tool-call', toolCallId: 'x', toolName: 'read_balance', input: '{}' }],
        finishReason: { unified: 'tool-calls', raw: undefined },
        usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
        warnings: [],
      }),
    });
    const runtime = await start({ model: () => looping });
    const session = await runtime.startSession({ agent: 'ledger', identity: alice });
    const turn = await runtime.send(session.id, 'loop forever', alice);
    expect(turn.status).toBe('step_limit');
    expect(looping.doGenerateCalls).toHaveLength(20);
    expect(turn.messages.at(-1)?.text).toMatch(/Stopped after 20 steps/);
  });

  it('audit verify names the sequence number of a tampered event', async () => {
    const runtime = await start();
    const session = await runtime.startSession({ agent: 'ledger', identity: alice });
    const turn = await runtime.send(session.id, 'pay bob 30', alice);
    await runtime.decide(session.id, { type: 'approve', callId: turn.interrupt!.callId }, alice);
    const audit = new AuditLog(testStore.store);
    expect((await audit.verify()).ok).toBe(true);
    const events = await audit.list();
    const target = events.find((e) => e.type === 'tool_approved')!;
    await testStore.store.db
      .updateTable('audit_events')
      .set({ payload: JSON.stringify({ ...target.payload, approver: 'mallory' }) })
      .where('seq', '=', target.seq)
      .execute();
    const verdict = await audit.verify();
    expect(verdict).toMatchObject({ ok: false, firstBrokenSeq: target.seq });
  });
});
