import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { helmAgent } from '../../src/agents/helm/index.ts';
import type { Identity } from '../../src/core/identity/index.ts';
import { createRuntime, type Runtime, type TurnResult } from '../../src/core/runtime/index.ts';
import { sqliteTestStore, type TestStore } from '../../src/testing/test-stores.ts';

// Issue 22, Broken 1: after No or Skip at the values gate, or a rejected plan, every later install
// or upgrade in the same session failed with "helm_validate_values is not allowed in the
// discovery phase". A declined workflow must leave its session ready for the next request.
const alice: Identity = { userId: 1, username: 'alice', roles: ['user'], channel: 'web' };
const carol: Identity = { userId: 2, username: 'carol', roles: ['approver'], channel: 'web' };

describe('a declined Helm workflow leaves its session usable', () => {
  let testStore: TestStore;
  let runtime: Runtime;
  beforeEach(async () => {
    testStore = await sqliteTestStore.create();
    runtime = await createRuntime({ store: testStore.store, agents: [helmAgent], agentOptions: { helm: { backend: 'simulator' } } });
  });
  afterEach(async () => {
    await runtime.close();
    await testStore.dispose();
  });

  const lastText = (turn: TurnResult) => turn.messages.filter((m) => m.role === 'assistant').at(-1)?.text ?? '';

  async function completeInstall(id: string, command: string) {
    const gate1 = await runtime.send(id, command, alice);
    expect(gate1.interrupt?.type, lastText(gate1)).toBe('question');
    const gate2 = await runtime.decide(id, { type: 'answer', callId: gate1.interrupt!.callId, answer: 'yes' }, alice);
    expect(gate2.interrupt?.type, lastText(gate2)).toBe('approval');
    const done = await runtime.decide(id, { type: 'approve', callId: gate2.interrupt!.callId }, carol);
    expect(lastText(done)).toContain('Verified: release');
    return done;
  }

  it.each([
    ['No at the values gate', 'no'],
    ['Skip at the values gate', 'skip'],
  ] as const)('%s, then an install in the same session runs to completion', async (_label, answer) => {
    const { id } = await runtime.startSession({ agent: 'helm', identity: alice });
    const gate1 = await runtime.send(id, 'install webapp as web', alice);
    const declined = await runtime.decide(id, { type: 'answer', callId: gate1.interrupt!.callId, answer }, alice);
    expect(lastText(declined)).toMatch(/Stopped at values confirmation|Skipped/);
    await completeInstall(id, 'install webapp as web set replicaCount=2');
    await completeInstall(id, 'upgrade web set replicaCount=3');
  });

  it('a rejected plan, then an install and an upgrade in the same session run to completion', async () => {
    const { id } = await runtime.startSession({ agent: 'helm', identity: alice });
    const gate1 = await runtime.send(id, 'install webapp as web', alice);
    const gate2 = await runtime.decide(id, { type: 'answer', callId: gate1.interrupt!.callId, answer: 'yes' }, alice);
    const rejected = await runtime.decide(id, { type: 'reject', callId: gate2.interrupt!.callId, reason: 'not today' }, carol);
    // Issue 31 (review N12): who rejected, the reason as a sentence, no "The person rejected this call".
    expect(lastText(rejected)).toBe('Rejected at plan approval by carol: not today. The workflow is aborted; nothing was changed.');
    await completeInstall(id, 'install webapp as web');
    await completeInstall(id, 'upgrade web set replicaCount=3');
  });
});
