import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_REPOSITORY_DIR } from '../../src/agents/helm/charts/chart-repository.ts';
import { createHelmAgent } from '../../src/agents/helm/index.ts';
import type { Identity } from '../../src/core/identity/index.ts';
import { createRuntime, type Runtime } from '../../src/core/runtime/index.ts';
import { sqliteTestStore, type TestStore } from '../../src/testing/test-stores.ts';
import { type InProcessFakeHelm, inProcessFakeHelm } from './fake-helm/install-fakes.ts';

// Why the fake `helm`: it counts dry runs in the fake's argv log; on the real binaries the whole change is
// counted by the N7 process budget (workflow-cases.ts, expectProcessBudget), which bounds the dry runs too.

// Issue 20 acceptance: "an approved change costs at most 4 server dry runs (plans reused by input
// hash)". The review counted 12 per change from the fake's argv log (M2): 6 plans of 2 renders.
const alice: Identity = { userId: 1, username: 'alice', roles: ['user'], channel: 'web' };
const carol: Identity = { userId: 2, username: 'carol', roles: ['approver'], channel: 'web' };

describe('server dry runs per approved change (helm CLI, in-process fake)', () => {
  let testStore: TestStore;
  let runtime: Runtime;
  let fake: InProcessFakeHelm;
  beforeEach(async () => {
    testStore = await sqliteTestStore.create();
    fake = await inProcessFakeHelm('v4');
    runtime = await createRuntime({
      store: testStore.store,
      agents: [createHelmAgent({ run: fake.run })],
      agentOptions: { helm: { backend: 'cli', charts: DEMO_REPOSITORY_DIR, helmPath: fake.helmPath, kubectlPath: fake.kubectlPath } },
    });
  });
  afterEach(async () => {
    await runtime.close();
    await testStore.dispose();
    await fake.close();
  });

  async function change(command: string): Promise<{ dryRuns: number; processes: number }> {
    const before = fake.calls.length;
    const { id } = await runtime.startSession({ agent: 'helm', identity: alice });
    const gate1 = await runtime.send(id, command, alice);
    const gate2 = await runtime.decide(id, { type: 'answer', callId: gate1.interrupt!.callId, answer: 'yes' }, alice);
    expect(gate2.interrupt?.type).toBe('approval');
    const done = await runtime.decide(id, { type: 'approve', callId: gate2.interrupt!.callId }, carol);
    expect(done.messages.at(-1)?.text).toContain('Verified: release');
    const calls = fake.calls.slice(before);
    return { dryRuns: calls.filter((argv) => argv.includes('--dry-run=server')).length, processes: calls.length };
  }

  it('an approved install and an approved upgrade each cost at most 4 server dry runs', async () => {
    const installed = await change('install webapp as web version 1.0.0 set replicaCount=2');
    expect(installed.dryRuns).toBeLessThanOrEqual(4);
    const upgraded = await change('upgrade web to version 1.1.0 set replicaCount=3');
    expect(upgraded.dryRuns).toBeLessThanOrEqual(4);
    expect(installed.dryRuns).toBeGreaterThan(0);
  });
});
