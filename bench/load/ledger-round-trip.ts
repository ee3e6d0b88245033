// The approval round trip every opsgate row of the load benchmark runs (and its profile): start a
// session, "pay bob N" → read → the transfer pauses for approval → an approver approves → answer.
import type { Runtime } from '../../src/core/runtime/index.ts';

const approver = { userId: 1, username: 'approver', roles: ['approver'] };

export async function ledgerRoundTrip(runtime: Runtime, userId: number): Promise<void> {
  const user = { userId, username: `u${userId}`, roles: ['user'] };
  const session = await runtime.startSession({ agent: 'ledger', identity: user });
  const paused = await runtime.send(session.id, `pay bob ${userId}`, user);
  if (paused.status !== 'waiting' || paused.interrupt?.type !== 'approval')
    throw new Error(`expected an approval pause, got ${paused.status}`);
  const done = await runtime.decide(session.id, { type: 'approve', callId: paused.interrupt.callId }, approver);
  if (done.status !== 'completed') throw new Error(`expected a final answer, got ${done.status}`);
}
