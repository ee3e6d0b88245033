import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_REPOSITORY_DIR } from '../../src/agents/helm/charts/chart-repository.ts';
import { ClusterRegistry, createHelmAgent } from '../../src/agents/helm/index.ts';
import type { Identity } from '../../src/core/identity/index.ts';
import { createRuntime, type Runtime } from '../../src/core/runtime/index.ts';
import { sqliteTestStore, type TestStore } from '../../src/testing/test-stores.ts';
import { type InProcessFakeHelm, inProcessFakeHelm } from './fake-helm/install-fakes.ts';

// Why the fake `helm`: several clusters need one cluster per context; what is under test is opsgate's binding
// of the approval to the cluster, not Helm, and one fake per context costs no processes.

// Issue 20, "several clusters": an approval is bound to the cluster it was given for. Approving a
// change planned for cluster A never runs it on B: editing the call's cluster is a fresh proposal,
// and a cluster re-registered with another context between proposal and approval voids the plan.
const alice: Identity = { userId: 1, username: 'alice', roles: ['user'], channel: 'web' };
const carol: Identity = { userId: 2, username: 'carol', roles: ['approver'], channel: 'web' };

interface Gate2 {
  callId: string;
  args: Record<string, unknown>;
  preview: { summary: string; bindingDigest: string; details: { plan: { planHash: string } } };
}

describe('helm approvals are bound to their cluster', () => {
  let testStore: TestStore;
  let runtime: Runtime;
  let fake: InProcessFakeHelm;
  let clusters: ClusterRegistry;
  beforeEach(async () => {
    testStore = await sqliteTestStore.create();
    fake = await inProcessFakeHelm('v4');
    runtime = await createRuntime({
      store: testStore.store,
      agents: [createHelmAgent({ run: fake.run })],
      agentOptions: { helm: { backend: 'cli', charts: DEMO_REPOSITORY_DIR, helmPath: fake.helmPath, kubectlPath: fake.kubectlPath } },
    });
    clusters = new ClusterRegistry(testStore.store);
    await clusters.add({ name: 'staging-eu', kubeContext: 'kind-staging', environment: 'staging', namespaces: ['*'] });
    await clusters.add({ name: 'dev-eu', kubeContext: 'kind-dev', environment: 'dev', namespaces: ['*'] });
  });
  afterEach(async () => {
    await runtime.close();
    await testStore.dispose();
    await fake.close();
  });

  async function toApproval(command: string): Promise<{ id: string; gate2: Gate2 }> {
    const { id } = await runtime.startSession({ agent: 'helm', identity: alice });
    const gate1 = await runtime.send(id, command, alice);
    expect(gate1.interrupt?.type, gate1.messages.at(-1)?.text).toBe('question');
    const gate2 = await runtime.decide(id, { type: 'answer', callId: gate1.interrupt!.callId, answer: 'yes' }, alice);
    expect(gate2.interrupt?.type, gate2.messages.at(-1)?.text).toBe('approval');
    return { id, gate2: gate2.interrupt as unknown as Gate2 };
  }

  const installs = (from: number, context: string) =>
    fake.calls
      .slice(from)
      .filter((argv) => argv[0] === 'helm' && argv[1] === 'install' && !argv.some((a) => a.startsWith('--dry-run')))
      .filter((argv) => argv[argv.indexOf('--kube-context') + 1] === context);

  it('an approver who edits the cluster gets a fresh proposal for the other cluster, not an execution', async () => {
    const { id, gate2 } = await toApproval('install webapp as web on staging-eu version 1.0.0');
    expect(gate2.preview.summary).toContain('on cluster staging-eu (staging)');
    const before = fake.calls.length;
    const again = await runtime.decide(id, { type: 'modify', callId: gate2.callId, args: { ...gate2.args, cluster: 'dev-eu' } }, carol);
    expect(again.interrupt?.type, again.messages.at(-1)?.text).toBe('approval');
    const fresh = again.interrupt as unknown as Gate2;
    expect(fresh.args.cluster).toBe('dev-eu');
    expect(fresh.preview.summary).toContain('on cluster dev-eu (dev)');
    expect(fresh.args.planHash).not.toBe(gate2.args.planHash);
    expect(fresh.preview.bindingDigest).toBe(fresh.args.planHash);
    // Nothing was installed anywhere by the edit.
    expect(installs(before, 'kind-dev')).toEqual([]);
    expect(installs(before, 'kind-staging')).toEqual([]);
    const done = await runtime.decide(id, { type: 'approve', callId: fresh.callId }, carol);
    expect(done.messages.at(-1)?.text).toContain('Verified: release');
    expect(installs(before, 'kind-dev')).toHaveLength(1);
    expect(installs(before, 'kind-staging')).toEqual([]);
  });

  it('a cluster re-registered with another context after the proposal: the approval does not run there', async () => {
    const { id, gate2 } = await toApproval('install webapp as web on staging-eu version 1.0.0');
    // Same name and environment, another cluster behind it.
    await clusters.remove('staging-eu');
    await clusters.add({ name: 'staging-eu', kubeContext: 'kind-other', environment: 'staging', namespaces: ['*'] });
    const before = fake.calls.length;
    const turn = await runtime.decide(id, { type: 'approve', callId: gate2.callId }, carol);
    expect(installs(before, 'kind-other')).toEqual([]);
    expect(installs(before, 'kind-staging')).toEqual([]);
    // The approval bound the plan for the old registration: the call is refused and nothing ran.
    expect(turn.interrupt).toBeUndefined();
    expect(turn.messages.at(-1)?.text).toMatch(/changed after they were approved\. The call was not run/);
    const changes = fake.calls
      .slice(before)
      .filter((argv) => argv[0] === 'helm' && ['install', 'upgrade'].includes(argv[1]!) && !argv.some((a) => a.startsWith('--dry-run')));
    expect(changes).toEqual([]);
  });
});
