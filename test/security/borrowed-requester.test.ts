import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessAgent } from '../../src/agents/access/index.ts';
import type { AccessDatabase } from '../../src/agents/access/service/schema.ts';
import { AuditLog, userActor } from '../../src/core/audit/index.ts';
import type { Identity } from '../../src/core/identity/index.ts';
import { UserRepository } from '../../src/core/identity/users.ts';
import { createRuntime, type Runtime } from '../../src/core/runtime/index.ts';
import { sqliteTestStore, type TestStore } from '../../src/testing/index.ts';

// Review 2026-11-26 H3-new: an admin mints a `use` token for alice, proposes a high-risk call as
// alice with it, then approves it himself. The issuer of a credential the requester acted with
// counts as a requester: he cannot approve, and the audit of the session and the proposal names him.
describe('a call asked with a borrowed token: its issuer counts as a requester (H3-new)', () => {
  let handle: TestStore;
  let runtime: Runtime;
  let users: UserRepository;
  const people: Record<'alice' | 'admin' | 'bob', Identity> = {} as never;

  beforeAll(async () => {
    handle = await sqliteTestStore.create();
    runtime = await createRuntime({ store: handle.store, agents: [accessAgent], env: {} });
    users = new UserRepository(handle.store);
    for (const [username, role] of [
      ['alice', 'approver'],
      ['admin', 'admin'],
      ['bob', 'approver'],
    ] as const) {
      const user = await users.create({ username, password: 'correct-horse-battery', roles: [role] });
      people[username] = { userId: user.id, username, roles: [role], channel: 'web' };
    }
  });
  afterAll(async () => {
    await runtime.close();
    await handle.dispose();
  });

  const granted = async (): Promise<string[]> =>
    (
      await (handle.store.db as unknown as Kysely<AccessDatabase>)
        .selectFrom('user_accesses as g')
        .innerJoin('accesses as a', 'a.id', 'g.access_id')
        .innerJoin('access_users as u', 'u.id', 'g.user_id')
        .where('u.username', '=', 'alice')
        .select('a.name')
        .execute()
    ).map((row) => row.name);

  async function borrowedTokenOfAlice(): Promise<Identity> {
    const minted = await users.createToken('alice', 'totally-normal', {
      by: { actor: userActor('admin'), username: 'admin', via: 'web' },
    });
    const found = await users.authenticateToken(minted.token);
    expect(found?.identity.credentialIssuedBy).toBe('admin');
    return found!.identity;
  }

  it('the admin who minted the token cannot approve the call; the session start and the proposal name him; another approver can', async () => {
    const asAlice = await borrowedTokenOfAlice();
    const session = await runtime.startSession({ agent: 'access', identity: asAlice });
    const turn = await runtime.callTool(
      session.id,
      { tool: 'grant_access_to_user', args: { username: 'alice', access_name: 'DB_WRITE_PROD', reason: 'totally normal' } },
      asAlice,
    );
    expect(turn.interrupt).toMatchObject({ type: 'approval', requestedBy: 'alice', requesterCredentialIssuers: ['admin'] });
    if (turn.interrupt?.type !== 'approval') throw new Error('expected an approval');
    expect(turn.interrupt.eligibleApprovers).toEqual(['bob']);
    const callId = turn.interrupt.callId;

    await expect(runtime.decide(session.id, { type: 'approve', callId }, people.admin)).rejects.toMatchObject({
      code: 'APPROVAL_REFUSED',
      message: expect.stringMatching(/you issued a credential the requester acted with.*Who can approve: bob/s),
    });
    expect(await granted()).toEqual([]);
    // Modify is an approval of the edited call: the same answer, a fresh proposal rather than a grant.
    const edited = await runtime.decide(
      session.id,
      { type: 'modify', callId, args: { username: 'alice', access_name: 'DB_WRITE_PROD', reason: 'edited' } },
      people.admin,
    );
    expect(edited.interrupt).toMatchObject({ type: 'approval', eligibleApprovers: ['bob'] });
    expect(await granted()).toEqual([]);

    const events = await new AuditLog(handle.store).list({ sessionId: session.id });
    expect(events.find((event) => event.type === 'session_started')).toMatchObject({
      actor: 'user:alice',
      payload: { credentialIssuedBy: 'admin' },
    });
    expect(events.find((event) => event.type === 'tool_proposed')?.payload).toMatchObject({
      requestedBy: 'alice',
      requesterCredentialIssuers: ['admin'],
    });
    expect(events.find((event) => event.type === 'approval_refused')?.payload).toMatchObject({
      policyId: 'no-approval-by-the-requesters-credential-issuer',
    });

    const freshCallId = (edited.interrupt as { callId: string }).callId;
    await runtime.decide(session.id, { type: 'approve', callId: freshCallId }, people.bob);
    expect(await granted()).toEqual(['DB_WRITE_PROD']);
    expect((await new AuditLog(handle.store).verify()).ok).toBe(true);
  });

  it('a session started with her own credential and continued with a borrowed token remembers the issuer for the rest of the session', async () => {
    const own = people.alice;
    const session = await runtime.startSession({ agent: 'access', identity: own });
    const asAlice = await borrowedTokenOfAlice();
    const turn = await runtime.callTool(
      session.id,
      { tool: 'grant_access_to_user', args: { username: 'alice', access_name: 'DB_ADMIN_PROD', reason: 'continued' } },
      asAlice,
    );
    if (turn.interrupt?.type !== 'approval') throw new Error('expected an approval');
    expect(turn.interrupt.requesterCredentialIssuers).toEqual(['admin']);
    await expect(runtime.decide(session.id, { type: 'approve', callId: turn.interrupt.callId }, people.admin)).rejects.toMatchObject({
      code: 'APPROVAL_REFUSED',
    });
    const pending = await runtime.pendingApprovals(people.admin);
    expect(pending.find((p) => p.sessionId === session.id)?.mayApprove).toBe(false);
  });

  it('an admin still approves a call whose requester used only her own credentials', async () => {
    const session = await runtime.startSession({ agent: 'access', identity: people.alice });
    const turn = await runtime.callTool(
      session.id,
      { tool: 'grant_access_to_user', args: { username: 'alice', access_name: 'DB_WRITE_DEV', reason: 'own' } },
      people.alice,
    );
    if (turn.interrupt?.type !== 'approval') throw new Error('expected an approval');
    expect(turn.interrupt.requesterCredentialIssuers).toBeUndefined();
    expect(turn.interrupt.eligibleApprovers).toEqual(expect.arrayContaining(['admin', 'bob']));
    await runtime.decide(session.id, { type: 'approve', callId: turn.interrupt.callId }, people.admin);
    expect(await granted()).toContain('DB_WRITE_DEV');
  });
});
