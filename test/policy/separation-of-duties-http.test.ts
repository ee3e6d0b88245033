import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { accessAgent } from '../../src/agents/access/index.ts';
import type { AccessDatabase } from '../../src/agents/access/service/schema.ts';
import { AuditLog } from '../../src/core/audit/index.ts';
import { UserRepository } from '../../src/core/identity/users.ts';
import { createRuntime, type Runtime } from '../../src/core/runtime/index.ts';
import { createServer } from '../../src/server/index.ts';
import { type TestStore, testStoreFactories } from '../../src/testing/index.ts';

// Issue 11 acceptance: over HTTP, john_doe requests DB_WRITE_PROD; his own approve gets 403 naming
// who can approve; alice's approve executes it; both are in the audit log.
describe.each(testStoreFactories())('separation of duties over HTTP on $dialect', (factory) => {
  let handle: TestStore;
  let runtime: Runtime;
  let app: FastifyInstance;
  const tokens: Record<string, string> = {};

  beforeEach(async () => {
    handle = await factory.create();
    runtime = await createRuntime({ store: handle.store, agents: [accessAgent], env: {} });
    const users = new UserRepository(handle.store);
    for (const [username, role] of [
      ['john_doe', 'user'],
      ['alice', 'approver'],
      ['jane_smith', 'user'],
    ] as const) {
      await users.create({ username, password: 'correct-horse-battery', roles: [role] });
      tokens[username] = (await users.createToken(username, 'test')).token;
    }
    app = await createServer({ runtime, store: handle.store, users });
  });
  afterEach(async () => {
    await app.close();
    await runtime.close();
    await handle.dispose();
  });

  const post = (as: string, url: string, payload: unknown) =>
    app.inject({ method: 'POST', url, payload: payload as Record<string, unknown>, headers: { authorization: `Bearer ${tokens[as]}` } });

  it('john cannot approve his own DB_WRITE_PROD; alice can, and it is granted; both are audited', async () => {
    const started = await post('john_doe', '/api/sessions', { agent: 'access' });
    expect(started.statusCode).toBe(201);
    const sessionId = (started.json() as { id: string }).id;
    await post('john_doe', `/api/sessions/${sessionId}/messages`, { text: 'I need database access' });
    const proposal = await post('john_doe', `/api/sessions/${sessionId}/messages`, { text: 'Production, write' });
    const interrupt = (proposal.json() as { interrupt: Record<string, unknown> }).interrupt;
    expect(interrupt).toMatchObject({
      tool: 'grant_access_to_user',
      args: { access_name: 'DB_WRITE_PROD' },
      policyId: 'state-changes-need-approval',
      requiredApprovals: 1,
      eligibleApprovers: ['alice'],
    });
    const callId = interrupt.callId as string;

    const own = await post('john_doe', `/api/sessions/${sessionId}/decisions`, { type: 'approve', callId });
    expect(own.statusCode).toBe(403);
    expect(own.json()).toMatchObject({ code: 'APPROVAL_REFUSED' });
    // Both separation-of-duties rules forbid it (a write access, and high risk); either may be named.
    expect((own.json() as { message: string }).message).toMatch(
      /^john_doe may not approve grant_access_to_user: nobody approves their own .+ \(policy sod-no-self-approval-(sensitive-access|high-risk)\)\. Who can approve: alice\.$/,
    );
    const held = () =>
      (handle.store.db as unknown as Kysely<AccessDatabase>)
        .selectFrom('user_accesses as g')
        .innerJoin('accesses as a', 'a.id', 'g.access_id')
        .select('a.name')
        .execute()
        .then((rows) => rows.map((row) => row.name));
    expect(await held()).toEqual([]);
    const stillWaiting = await app.inject({
      method: 'GET',
      url: `/api/sessions/${sessionId}`,
      headers: { authorization: `Bearer ${tokens.alice}` },
    });
    expect(stillWaiting.json()).toMatchObject({ status: 'waiting', interrupt: { callId } });

    const byJane = await post('jane_smith', `/api/sessions/${sessionId}/decisions`, { type: 'approve', callId });
    expect(byJane.statusCode).toBe(403);

    const byAlice = await post('alice', `/api/sessions/${sessionId}/decisions`, { type: 'approve', callId });
    expect(byAlice.statusCode).toBe(200);
    expect(await held()).toEqual(['DB_WRITE_PROD']);

    const events = await new AuditLog(handle.store).list({ sessionId });
    const refused = events.find((event) => event.type === 'approval_refused');
    expect(refused).toMatchObject({
      actor: 'user:john_doe',
      payload: { callId, tool: 'grant_access_to_user', eligibleApprovers: ['alice'] },
    });
    expect(String(refused?.payload.policyId)).toMatch(/^sod-no-self-approval-(sensitive-access|high-risk)$/);
    expect(events.find((event) => event.type === 'tool_approved')).toMatchObject({ actor: 'user:alice', payload: { approver: 'alice' } });
    expect(events.some((event) => event.type === 'tool_executed')).toBe(true);
    expect((await new AuditLog(handle.store).verify()).ok).toBe(true);
  });

  it('Modify over REST: john edits his low-risk request into DB_WRITE_PROD and gets a proposal for alice, not the access; a low-risk edit runs and the agent says what was granted (review C1, L8)', async () => {
    const sessionId = ((await post('john_doe', '/api/sessions', { agent: 'access' })).json() as { id: string }).id;
    const asked = await post('john_doe', `/api/sessions/${sessionId}/messages`, { text: 'I need access to read documents' });
    const first = (asked.json() as { interrupt: { callId: string; args: Record<string, unknown> } }).interrupt;
    expect(first.args).toMatchObject({ access_name: 'READ_DOCUMENTS' });
    const edited = await post('john_doe', `/api/sessions/${sessionId}/decisions`, {
      type: 'modify',
      callId: first.callId,
      args: { access_name: 'DB_WRITE_PROD', username: 'john_doe' },
    });
    expect(edited.statusCode).toBe(200);
    const fresh = (edited.json() as { interrupt: { callId: string; args: Record<string, unknown>; eligibleApprovers: string[] } })
      .interrupt;
    expect(fresh).toMatchObject({ args: { access_name: 'DB_WRITE_PROD' }, eligibleApprovers: ['alice'] });
    const granted = async () =>
      (
        await (handle.store.db as unknown as Kysely<AccessDatabase>)
          .selectFrom('user_accesses as g')
          .innerJoin('accesses as a', 'a.id', 'g.access_id')
          .select('a.name')
          .execute()
      ).map((row) => row.name);
    expect(await granted()).toEqual([]);
    expect((await post('john_doe', `/api/sessions/${sessionId}/decisions`, { type: 'approve', callId: fresh.callId })).statusCode).toBe(
      403,
    );
    const audit = await new AuditLog(handle.store).list({ sessionId });
    expect(audit.find((event) => event.type === 'tool_modified')?.payload).toMatchObject({ approvedByEdit: false, channel: 'rest' });
    expect(audit.map((event) => event.type)).not.toContain('tool_approved');
    expect(
      (await post('john_doe', `/api/sessions/${sessionId}/decisions`, { type: 'reject', callId: fresh.callId, reason: 'withdrawn' }))
        .statusCode,
    ).toBe(200);

    const again = await post('john_doe', `/api/sessions/${sessionId}/messages`, { text: 'I need access to read documents' });
    const second = (again.json() as { interrupt: { callId: string } }).interrupt;
    const lowEdit = await post('john_doe', `/api/sessions/${sessionId}/decisions`, {
      type: 'modify',
      callId: second.callId,
      args: { access_name: 'DB_READ_PROD', username: 'john_doe' },
    });
    expect(lowEdit.statusCode).toBe(200);
    expect(await granted()).toEqual(['DB_READ_PROD']);
    const said = (lowEdit.json() as { messages: Array<{ role: string; text: string }> }).messages
      .filter((m) => m.role === 'assistant')
      .at(-1);
    expect(said?.text).toBe("The request was changed to DB_READ_PROD. I've granted you DB_READ_PROD access.");
  });

  const get = (as: string, url: string) => app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${tokens[as]}` } });

  async function proposeWriteAccess(answer = 'Production, write'): Promise<{ sessionId: string; callId: string }> {
    const sessionId = ((await post('john_doe', '/api/sessions', { agent: 'access' })).json() as { id: string }).id;
    await post('john_doe', `/api/sessions/${sessionId}/messages`, { text: 'I need database access' });
    const proposal = await post('john_doe', `/api/sessions/${sessionId}/messages`, { text: answer });
    return { sessionId, callId: (proposal.json() as { interrupt: { callId: string } }).interrupt.callId };
  }

  it('the inbox API lists what waits for whom, approves and rejects by call id, and keeps the history', async () => {
    const { sessionId, callId } = await proposeWriteAccess();
    const forAlice = (await get('alice', '/api/approvals')).json() as { pending: Array<Record<string, unknown>>; waitingForMe: number };
    expect(forAlice.waitingForMe).toBe(1);
    expect(forAlice.pending).toMatchObject([
      { sessionId, agent: 'access', mayApprove: true, interrupt: { callId, requestedBy: 'john_doe' } },
    ]);
    const forJohn = (await get('john_doe', '/api/approvals')).json() as { pending: unknown[]; waitingForMe: number };
    expect(forJohn).toMatchObject({ waitingForMe: 0, pending: [{ mayApprove: false }] });
    expect((await get('jane_smith', '/api/approvals')).json()).toMatchObject({ pending: [], waitingForMe: 0 });
    expect((await get('jane_smith', `/api/approvals/${callId}`)).statusCode).toBe(404);
    expect((await get('alice', `/api/approvals/${callId}`)).json()).toMatchObject({
      sessionId,
      interrupt: { policyId: 'state-changes-need-approval' },
    });

    const refused = await post('john_doe', `/api/approvals/${callId}/approve`, {});
    expect(refused.statusCode).toBe(403);
    expect((refused.json() as { message: string }).message).toContain('Who can approve: alice.');
    const approved = await post('alice', `/api/approvals/${callId}/approve`, {});
    expect(approved.statusCode).toBe(200);
    expect((await get('alice', '/api/approvals')).json()).toMatchObject({ pending: [], waitingForMe: 0 });
    const history = (await get('alice', '/api/approvals/history')).json() as { decided: Array<Record<string, unknown>> };
    expect(history.decided[0]).toMatchObject({
      callId,
      tool: 'grant_access_to_user',
      status: 'executed',
      approvedBy: 'alice',
      requestedBy: 'john_doe',
    });

    const second = await proposeWriteAccess('Production, read only');
    const rejected = await post('alice', `/api/approvals/${second.callId}/reject`, { reason: 'use the read replica' });
    expect(rejected.statusCode).toBe(200);
    const after = (await get('john_doe', '/api/approvals/history')).json() as { decided: Array<Record<string, unknown>> };
    expect(after.decided[0]).toMatchObject({ callId: second.callId, status: 'rejected' });
  });
});
