import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessAgent } from '../../src/agents/access/index.ts';
import type { AccessDatabase } from '../../src/agents/access/service/schema.ts';
import { AuditLog } from '../../src/core/audit/index.ts';
import { OpsgateError } from '../../src/core/errors/index.ts';
import type { Channel, Identity } from '../../src/core/identity/index.ts';
import { UserRepository } from '../../src/core/identity/users.ts';
import { createRuntime, type Decision, type Runtime } from '../../src/core/runtime/index.ts';
import { sqliteTestStore, type TestStore } from '../../src/testing/index.ts';

// Issue 18 acceptance 1: every decision path × {requester, eligible approver, ineligible user,
// admin holding a token he minted for an approver} × {low, high, low edited into high}.
// Every door (web, REST, CLI, chat, MCP elicitation, Slack, Teams, the gateway) ends in
// Runtime.decide with the person's identity and the door as its channel; the doors' own tests
// (test/security/doors.test.ts and the interface suites) prove each passes exactly that.

type Who = 'requester' | 'approver' | 'ineligible' | 'borrowed';
type Case = 'low' | 'high' | 'low-edited-into-high';
const CHANNELS: readonly Channel[] = ['web', 'rest', 'cli', 'chat', 'mcp-elicitation', 'slack', 'gateway'];
const ACCESS = { low: 'READ_DOCUMENTS', high: 'DB_WRITE_PROD' } as const;

interface Outcome {
  /** What happened to the call: executed, still waiting (a fresh proposal or the same one), rejected, refused. */
  readonly result: 'executed' | 'fresh-proposal' | 'refused' | 'forbidden' | 'rejected';
  readonly code?: string;
  readonly message?: string;
}

/** What the policy must answer. `undefined` = not applicable. */
function expected(decision: 'approve' | 'modify' | 'reject', who: Who, risk: Case, channel: Channel): Outcome['result'] {
  if (who === 'ineligible') return 'forbidden';
  if (decision === 'reject') return 'rejected';
  const finalRisk = risk === 'low' ? 'low' : 'high';
  if (decision === 'modify') {
    // Editing a low call into a high one (or a high one at all) is an approval of the edited call.
    const mayApproveEdited =
      who === 'approver' ? !(channel === 'mcp-elicitation' && finalRisk === 'high') : who === 'requester' ? finalRisk === 'low' : false;
    return mayApproveEdited ? 'executed' : 'fresh-proposal';
  }
  if (risk === 'low-edited-into-high') return 'refused';
  if (who === 'borrowed') return 'refused';
  if (who === 'requester') return finalRisk === 'low' ? 'executed' : 'refused';
  return channel === 'mcp-elicitation' && finalRisk === 'high' ? 'refused' : 'executed';
}

describe('one door for every decision: the decision matrix', () => {
  let handle: TestStore;
  let runtime: Runtime;
  const people: Record<'john_doe' | 'alice' | 'jane_smith' | 'admin', Identity> = {} as never;

  beforeAll(async () => {
    handle = await sqliteTestStore.create();
    runtime = await createRuntime({ store: handle.store, agents: [accessAgent], env: {} });
    const users = new UserRepository(handle.store);
    for (const [username, role] of [
      ['john_doe', 'user'],
      ['alice', 'approver'],
      ['jane_smith', 'user'],
      ['admin', 'admin'],
    ] as const) {
      const user = await users.create({ username, password: 'correct-horse-battery', roles: [role] });
      people[username] = { userId: user.id, username, roles: [role] };
    }
  });
  afterAll(async () => {
    await runtime.close();
    await handle.dispose();
  });

  function actor(who: Who, channel: Channel): Identity {
    switch (who) {
      case 'requester':
        return { ...people.john_doe, channel };
      case 'approver':
        return { ...people.alice, channel };
      case 'ineligible':
        return { ...people.jane_smith, channel };
      case 'borrowed':
        // An admin minted a token for alice and acts with it.
        return { ...people.alice, channel, credentialIssuedBy: 'admin' };
    }
  }

  const held = async (): Promise<string[]> =>
    (
      await (handle.store.db as unknown as Kysely<AccessDatabase>)
        .selectFrom('user_accesses as g')
        .innerJoin('accesses as a', 'a.id', 'g.access_id')
        .innerJoin('access_users as u', 'u.id', 'g.user_id')
        .where('u.username', '=', 'john_doe')
        .select('a.name')
        .execute()
    ).map((row) => row.name);

  async function propose(access: string): Promise<{ sessionId: string; callId: string }> {
    const session = await runtime.startSession({ agent: 'access', identity: people.john_doe });
    const turn = await runtime.callTool(
      session.id,
      { tool: 'grant_access_to_user', args: { username: 'john_doe', access_name: access, reason: 'matrix' } },
      { ...people.john_doe, channel: 'rest' },
    );
    if (turn.interrupt?.type !== 'approval') throw new Error(`expected an approval for ${access}, got ${JSON.stringify(turn)}`);
    return { sessionId: session.id, callId: turn.interrupt.callId };
  }

  async function revokeAll(): Promise<void> {
    await (handle.store.db as unknown as Kysely<AccessDatabase>).deleteFrom('user_accesses').execute();
  }

  async function attempt(decision: 'approve' | 'modify' | 'reject', who: Who, risk: Case, channel: Channel): Promise<Outcome> {
    await revokeAll();
    const { sessionId, callId } = await propose(risk === 'high' ? ACCESS.high : ACCESS.low);
    const wanted: Decision =
      decision === 'reject'
        ? { type: 'reject', callId, reason: 'no' }
        : decision === 'modify' || risk === 'low-edited-into-high'
          ? {
              type: 'modify',
              callId,
              args: { username: 'john_doe', access_name: risk === 'low' ? ACCESS.low : ACCESS.high, reason: 'matrix' },
            }
          : { type: 'approve', callId };
    try {
      const turn = await runtime.decide(sessionId, wanted, actor(who, channel));
      if (decision === 'reject') return { result: 'rejected' };
      if (turn.interrupt?.type === 'approval' && turn.interrupt.callId !== callId) {
        expect(turn.interrupt.requestedBy).toBe('john_doe');
        return { result: 'fresh-proposal', message: turn.interrupt.eligibleApprovers?.join(', ') ?? '' };
      }
      return { result: (await held()).length > 0 ? 'executed' : 'refused' };
    } catch (error) {
      if (!OpsgateError.isInstance(error)) throw error;
      if (error.code === 'SESSION_FORBIDDEN') return { result: 'forbidden', code: error.code };
      return { result: 'refused', code: error.code, message: error.message };
    }
  }

  const whos: Who[] = ['requester', 'approver', 'ineligible', 'borrowed'];
  const cases: Case[] = ['low', 'high', 'low-edited-into-high'];
  const rows: Array<[string, 'approve' | 'modify' | 'reject', Who, Case, Channel]> = [];
  for (const channel of CHANNELS)
    for (const who of whos)
      for (const risk of cases) {
        // "Low edited into high" is a modify by construction; approve and modify rows cover the others.
        if (risk === 'low-edited-into-high') rows.push([`modify ${who} ${risk} via ${channel}`, 'modify', who, risk, channel]);
        else {
          rows.push([`approve ${who} ${risk} via ${channel}`, 'approve', who, risk, channel]);
          rows.push([`modify ${who} ${risk} via ${channel}`, 'modify', who, risk, channel]);
        }
      }
  for (const who of whos) rows.push([`reject ${who} high via web`, 'reject', who, 'high', 'web']);

  it.each(rows)('%s', async (_name, decision, who, risk, channel) => {
    const outcome = await attempt(decision, who, risk, channel);
    const want = expected(decision, who, risk === 'low-edited-into-high' && decision !== 'modify' ? 'high' : risk, channel);
    expect(outcome.result, JSON.stringify(outcome)).toBe(want);
    const finalRisk = risk === 'low' ? 'low' : 'high';
    // The invariant: a high-risk call never runs on its requester's own decision.
    if (who === 'requester' && finalRisk === 'high') expect(await held()).not.toContain(ACCESS.high);
    // Each refusal names who can approve.
    if (outcome.result === 'refused') expect(outcome.message).toMatch(/Who can approve: (alice|admin)/);
    if (outcome.result === 'fresh-proposal') expect(outcome.message).toMatch(/alice/);
  });

  it('records the door and the credential issuer with each decision, and the audit verifies', async () => {
    await revokeAll();
    const { sessionId, callId } = await propose(ACCESS.high);
    await expect(runtime.decide(sessionId, { type: 'approve', callId }, actor('borrowed', 'rest'))).rejects.toMatchObject({
      code: 'APPROVAL_REFUSED',
      message: expect.stringContaining('a token issued by someone else cannot approve'),
    });
    await runtime.decide(sessionId, { type: 'approve', callId }, actor('approver', 'slack'));
    const events = await new AuditLog(handle.store).list({ sessionId });
    expect(events.find((event) => event.type === 'approval_refused')?.payload).toMatchObject({
      channel: 'rest',
      credentialIssuedBy: 'admin',
      policyId: 'no-approval-with-a-borrowed-credential',
    });
    expect(events.find((event) => event.type === 'tool_approved')).toMatchObject({
      actor: 'user:alice',
      payload: { approver: 'alice', channel: 'slack' },
    });
    expect((await new AuditLog(handle.store).verify()).ok).toBe(true);
  });

  it('a requester who edits his low-risk request into production write access gets a proposal for alice, not the access (review C1)', async () => {
    await revokeAll();
    const { sessionId, callId } = await propose(ACCESS.low);
    const turn = await runtime.decide(
      sessionId,
      { type: 'modify', callId, args: { username: 'john_doe', access_name: ACCESS.high, reason: 'matrix' } },
      actor('requester', 'web'),
    );
    expect(turn.interrupt).toMatchObject({ type: 'approval', args: { access_name: ACCESS.high }, eligibleApprovers: ['admin', 'alice'] });
    expect(await held()).toEqual([]);
    const events = await new AuditLog(handle.store).list({ sessionId });
    expect(events.map((event) => event.type)).not.toContain('tool_approved');
    expect(events.find((event) => event.type === 'tool_modified')?.payload).toMatchObject({ approvedByEdit: false, channel: 'web' });
    const freshCallId = (turn.interrupt as { callId: string }).callId;
    await expect(runtime.decide(sessionId, { type: 'approve', callId: freshCallId }, actor('requester', 'web'))).rejects.toMatchObject({
      code: 'APPROVAL_REFUSED',
    });
    await runtime.decide(sessionId, { type: 'approve', callId: freshCallId }, actor('approver', 'web'));
    expect(await held()).toEqual([ACCESS.high]);
  });

  it('the fresh proposal after a Modify does not keep what the agent said about the old arguments (review L8, residual)', async () => {
    await revokeAll();
    const session = await runtime.startSession({ agent: 'access', identity: people.john_doe });
    const asked = await runtime.send(session.id, 'I need READ_DOCUMENTS', { ...people.john_doe, channel: 'web' });
    if (asked.interrupt?.type !== 'approval') throw new Error('expected an approval');
    expect(asked.interrupt.text ?? '').toContain('READ_DOCUMENTS');
    const edited = await runtime.decide(
      session.id,
      { type: 'modify', callId: asked.interrupt.callId, args: { username: 'john_doe', access_name: ACCESS.high, reason: 'matrix' } },
      actor('requester', 'web'),
    );
    if (edited.interrupt?.type !== 'approval') throw new Error('expected a fresh proposal');
    expect(edited.interrupt.args).toMatchObject({ access_name: ACCESS.high });
    expect(edited.interrupt.text).toMatch(
      /^john_doe edited this request \(was .*READ_DOCUMENTS.*\); the edited call waits for approval\.$/,
    );
    expect(edited.interrupt.text).not.toMatch(/I found|I'll grant|shall I/i);
  });
});
