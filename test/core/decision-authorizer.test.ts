import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../../src/core/audit/index.ts';
import type { Identity } from '../../src/core/identity/index.ts';
import { DEFAULT_POLICY_DIR } from '../../src/core/policy/index.ts';
import { createRuntime, type Runtime } from '../../src/core/runtime/index.ts';
import { createLedgerAgent, createLedgerModel, type LedgerRecorder } from '../../src/testing/index.ts';
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

  async function start(policy?: string): Promise<{ runtime: Runtime; store: TestStore; recorder: LedgerRecorder }> {
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
      model: () => createLedgerModel(),
      ...(policyDir ? { policyDir } : {}),
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
});
