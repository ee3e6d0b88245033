import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent } from '../../src/core/agent/index.ts';
import { AuditLog } from '../../src/core/audit/index.ts';
import { OpsgateError } from '../../src/core/errors/index.ts';
import { createRuntime } from '../../src/core/runtime/create-runtime.ts';
import type { Runtime } from '../../src/core/runtime/runtime-api.ts';
import { defineTool } from '../../src/core/tools/index.ts';
import { fixedClock, sqliteTestStore, type TestStore } from '../../src/testing/index.ts';

const alice = { userId: 1, username: 'alice', roles: ['user'] };

/**
 * A "stager" that keeps its open change in process memory, the way the sandbox keeps an open
 * transaction: each runtime (each server process) sets the agent up afresh, so a restart loses it.
 */
function stagerAgent(committed: string[], stagedPerProcess: Array<Map<string, string>>) {
  return defineAgent({
    name: 'stager',
    title: 'Stager',
    description: 'stages a change in memory, then commits it',
    instructions: 'stage, then commit',
    async setup() {
      const open = new Map<string, string>();
      stagedPerProcess.push(open);
      return {
        tools: [
          defineTool({
            name: 'stage',
            description: 'Stage a change (in memory).',
            input: z.object({ change: z.string() }),
            mutability: 'read-only',
            cache: false,
            execute: async (input, context) => {
              open.set(context.sessionId, input.change);
              return { staged: input.change };
            },
          }),
          defineTool({
            name: 'commit',
            description: 'Commit the staged change.',
            input: z.object({}),
            mutability: 'mutable',
            checkRunnable: (_input, context) =>
              open.has(context.sessionId)
                ? undefined
                : 'This commit can no longer run: the staged change was lost when the server restarted.',
            preview: async (_input, context) => ({
              kind: 'change',
              summary: `commit ${open.get(context.sessionId) ?? 'nothing'}`,
              bindingDigest: open.get(context.sessionId) ?? 'none',
            }),
            execute: async (_input, context) => {
              const change = open.get(context.sessionId);
              if (change === undefined) throw new Error('nothing staged');
              committed.push(change);
              open.delete(context.sessionId);
              return { committed: change };
            },
          }),
        ],
      };
    },
  });
}

describe('can a pending approval still run? (asked before the person decides)', () => {
  let testStore: TestStore;
  const runtimes: Runtime[] = [];
  const committed: string[] = [];
  const stagedPerProcess: Array<Map<string, string>> = [];
  const clock = fixedClock();

  async function start(): Promise<Runtime> {
    const runtime = await createRuntime({
      store: testStore.store,
      agents: [stagerAgent(committed, stagedPerProcess)],
      clock,
      approvalTtlMs: 60_000,
    });
    runtimes.push(runtime);
    return runtime;
  }

  /** Stages "add row 1" and proposes the commit; returns the runtime, session and pending call. */
  async function proposeCommit(runtime: Runtime) {
    const session = await runtime.startSession({ agent: 'stager', identity: alice });
    await runtime.send(session.id, '/call stage {"change":"add row 1"}', alice);
    const turn = await runtime.send(session.id, '/call commit {}', alice);
    expect(turn.interrupt).toMatchObject({ type: 'approval', tool: 'commit', preview: { summary: 'commit add row 1' } });
    return { sessionId: session.id, callId: turn.interrupt!.callId };
  }

  beforeEach(async () => {
    testStore = await sqliteTestStore.create();
    committed.length = 0;
    stagedPerProcess.length = 0;
    clock.set('2026-01-01T00:00:00.000Z');
  });
  afterEach(async () => {
    for (const runtime of runtimes.splice(0)) await runtime.close();
    await testStore.dispose();
  });

  it('an approval whose state is intact is runnable, and approving it runs the call', async () => {
    const runtime = await start();
    const { sessionId, callId } = await proposeCommit(runtime);
    expect(await runtime.approvalReadiness(sessionId, callId, alice)).toEqual({ callId, runnable: true });
    await runtime.decide(sessionId, { type: 'approve', callId }, alice);
    expect(committed).toEqual(['add row 1']);
  });

  it('after a restart the tool says what was lost; the check changes nothing and approving does not run the call', async () => {
    const { sessionId, callId } = await proposeCommit(await start());
    await runtimes[0]!.close();
    const restarted = await start();
    const before = await restarted.getSession(sessionId, alice);
    const readiness = await restarted.approvalReadiness(sessionId, callId, alice);
    expect(readiness).toEqual({
      callId,
      runnable: false,
      reason: 'state-lost',
      message: 'This commit can no longer run: the staged change was lost when the server restarted.',
    });
    // Asking is a read: the session still waits on the same call, nothing was audited.
    const after = await restarted.getSession(sessionId, alice);
    expect(after.status).toBe('waiting');
    expect(after.toolCalls.map((c) => c.status)).toEqual(before.toolCalls.map((c) => c.status));
    expect((await new AuditLog(testStore.store).list({ sessionId })).map((e) => e.type)).not.toContain('tool_failed');

    const approved = await restarted.decide(sessionId, { type: 'approve', callId }, alice);
    expect(committed).toEqual([]);
    expect(approved.session.toolCalls.find((c) => c.id === callId)?.status).toBe('failed');
    expect(approved.messages.find((m) => m.role === 'tool')?.text).toMatch(/APPROVAL_STALE|lost when the server restarted/);
  });

  it('re-plan voids the stale call (expired, audited tool_voided) and tells the model APPROVAL_STALE so it plans again', async () => {
    const { sessionId, callId } = await proposeCommit(await start());
    await runtimes[0]!.close();
    const restarted = await start();
    const done = await restarted.decide(sessionId, { type: 'replan', callId }, alice);
    expect(committed).toEqual([]);
    expect(done.session.status).toBe('idle');
    const call = done.session.toolCalls.find((c) => c.id === callId);
    expect(call).toMatchObject({ status: 'expired', error: expect.stringContaining('lost when the server restarted') });
    const voided = await new AuditLog(testStore.store).list({ sessionId, type: 'tool_voided' });
    expect(voided.map((e) => e.payload)).toEqual([
      expect.objectContaining({ callId, tool: 'commit', reason: 'state-lost', message: expect.stringContaining('lost') }),
    ]);
    // The offline model read the tool result: the stable code reached the model.
    expect(done.messages.map((m) => m.text).join('\n')).toContain('APPROVAL_STALE');
    // The session is usable again: plan anew, and the new proposal is runnable.
    await restarted.send(sessionId, '/call stage {"change":"add row 1"}', alice);
    const again = await restarted.send(sessionId, '/call commit {}', alice);
    expect(await restarted.approvalReadiness(sessionId, again.interrupt!.callId, alice)).toMatchObject({ runnable: true });
    await restarted.decide(sessionId, { type: 'approve', callId: again.interrupt!.callId }, alice);
    expect(committed).toEqual(['add row 1']);
  });

  it('re-plan is refused while the approval can still run, and the call stays pending', async () => {
    const runtime = await start();
    const { sessionId, callId } = await proposeCommit(runtime);
    const refused = await runtime.decide(sessionId, { type: 'replan', callId }, alice).catch((error: unknown) => error);
    expect(OpsgateError.isInstance(refused) && refused.code).toBe('DECISION_INVALID');
    const session = await runtime.getSession(sessionId, alice);
    expect(session.status).toBe('waiting');
    expect(session.toolCalls.find((c) => c.id === callId)?.status).toBe('proposed');
  });

  it('a preview that changed after it was shown is binding-changed, naming what it would do now', async () => {
    const runtime = await start();
    const session = await runtime.startSession({ agent: 'stager', identity: alice });
    await runtime.send(session.id, '/call stage {"change":"add row 1"}', alice);
    const turn = await runtime.send(session.id, '/call commit {}', alice);
    const callId = turn.interrupt!.callId;
    // The staged change changed behind the shown preview: the approval no longer holds.
    stagedPerProcess.at(-1)!.set(session.id, 'drop everything');
    expect(await runtime.approvalReadiness(session.id, callId, alice)).toEqual({
      callId,
      runnable: false,
      reason: 'binding-changed',
      message: 'What commit would do changed after it was shown (now: commit drop everything), so it can no longer run as approved.',
    });
  });

  it('an expired request is reported before the click', async () => {
    const runtime = await start();
    const { sessionId, callId } = await proposeCommit(runtime);
    clock.advance(61_000);
    expect(await runtime.approvalReadiness(sessionId, callId, alice)).toMatchObject({ runnable: false, reason: 'expired' });
  });

  it('asking about a call the session does not wait on is a typed error', async () => {
    const runtime = await start();
    const { sessionId } = await proposeCommit(runtime);
    const wrong = await runtime.approvalReadiness(sessionId, 'not-the-call', alice).catch((error: unknown) => error);
    expect(OpsgateError.isInstance(wrong) && wrong.code).toBe('DECISION_MISMATCH');
    const bob = { userId: 2, username: 'bob', roles: ['user'] };
    const forbidden = await runtime.approvalReadiness(sessionId, 'x', bob).catch((error: unknown) => error);
    expect(OpsgateError.isInstance(forbidden) && forbidden.code).toBe('SESSION_FORBIDDEN');
  });
});
