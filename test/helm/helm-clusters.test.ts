import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_REPOSITORY_DIR } from '../../src/agents/helm/charts/chart-repository.ts';
import { ClusterRegistry, createHelmAgent } from '../../src/agents/helm/index.ts';
import { AuditLog } from '../../src/core/audit/index.ts';
import type { Identity } from '../../src/core/identity/index.ts';
import { DEFAULT_POLICY_DIR } from '../../src/core/policy/index.ts';
import { createRuntime, type Runtime } from '../../src/core/runtime/index.ts';
import { sqliteTestStore, type TestStore } from '../../src/testing/test-stores.ts';
import { type InProcessFakeHelm, inProcessFakeHelm } from './fake-helm/install-fakes.ts';

// Why the fake `helm`: several clusters need one cluster per context; the allow-list, the plan's cluster and
// Cedar's view are opsgate's logic, not Helm's, and one fake per context costs no processes.

// Issue 20, "several clusters": registered clusters are the targets of the workflow, allow-listed
// by namespace, named in the plan (and its hash), the approval and the audit, and seen by Cedar.
const alice: Identity = { userId: 1, username: 'alice', roles: ['user'], channel: 'web' };
const carol: Identity = { userId: 2, username: 'carol', roles: ['approver'], channel: 'web' };
const dave: Identity = { userId: 3, username: 'dave', roles: ['admin'], channel: 'web' };
const erin: Identity = { userId: 4, username: 'erin', roles: ['admin'], channel: 'web' };

// The default policy plus site rules reading the target's environment: production changes need two
// approvers, both admins.
const PRODUCTION_RULES = `@id("production-clusters-two-approvers")
permit (principal, action == Opsgate::Action::"requireSecondApprover", resource)
when { context.mutable && context.environment == "production" };

@id("production-clusters-admins-approve")
@reason("changes to production clusters are approved by admins")
forbid (principal, action == Opsgate::Action::"approve", resource)
when { context.environment == "production" }
unless { principal in Opsgate::Role::"admin" };
`;

describe('helm clusters as targets (helm CLI, in-process fake)', () => {
  let testStore: TestStore;
  let runtime: Runtime;
  let fake: InProcessFakeHelm;
  let clusters: ClusterRegistry;
  let policyDir: string;
  let kubeconfig: string;
  beforeEach(async () => {
    testStore = await sqliteTestStore.create();
    fake = await inProcessFakeHelm('v4');
    policyDir = mkdtempSync(join(tmpdir(), 'opsgate-clusters-policy-'));
    cpSync(DEFAULT_POLICY_DIR, policyDir, { recursive: true });
    writeFileSync(join(policyDir, 'production.cedar'), PRODUCTION_RULES);
    kubeconfig = join(policyDir, 'prod.kubeconfig');
    writeFileSync(kubeconfig, 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n');
    runtime = await createRuntime({
      store: testStore.store,
      policyDir,
      agents: [createHelmAgent({ run: fake.run })],
      agentOptions: { helm: { backend: 'cli', charts: DEMO_REPOSITORY_DIR, helmPath: fake.helmPath, kubectlPath: fake.kubectlPath } },
    });
    clusters = new ClusterRegistry(testStore.store);
  });
  afterEach(async () => {
    await runtime.close();
    await testStore.dispose();
    await fake.close();
    rmSync(policyDir, { recursive: true, force: true });
  });

  async function toApproval(command: string) {
    const { id } = await runtime.startSession({ agent: 'helm', identity: alice });
    const gate1 = await runtime.send(id, command, alice);
    expect(gate1.interrupt?.type, gate1.messages.at(-1)?.text).toBe('question');
    const gate2 = await runtime.decide(id, { type: 'answer', callId: gate1.interrupt!.callId, answer: 'yes' }, alice);
    expect(gate2.interrupt?.type, gate2.messages.at(-1)?.text).toBe('approval');
    return { id, gate2 };
  }

  async function refusal(command: string): Promise<string> {
    const { id } = await runtime.startSession({ agent: 'helm', identity: alice });
    const turn = await runtime.send(id, command, alice);
    expect(turn.interrupt).toBeUndefined();
    return turn.messages.at(-1)?.text ?? '';
  }

  it('an install on a named production cluster: its context on every command, the cluster in plan, approval and audit, approved by someone else', async () => {
    await clusters.add({ name: 'staging-eu', kubeContext: 'kind-staging', environment: 'staging', namespaces: ['default'] });
    await clusters.add({
      name: 'prod-eu',
      kubeContext: 'kind-prod',
      kubeconfig,
      environment: 'production',
      namespaces: ['shop'],
    });
    const before = fake.calls.length;
    const { id, gate2 } = await toApproval('install webapp as web in shop on prod-eu version 1.0.0 set replicaCount=2');
    const interrupt = gate2.interrupt as unknown as {
      args: Record<string, unknown>;
      preview: { summary: string; details: { plan: { cluster?: unknown; planHash: string } } };
    };
    expect(interrupt.args.cluster).toBe('prod-eu');
    expect(interrupt.preview.summary).toContain('in shop on cluster prod-eu (production)');
    expect(interrupt.preview.details.plan.cluster).toEqual({
      name: 'prod-eu',
      environment: 'production',
      registration: expect.stringMatching(/^hmac-sha256:[0-9a-f]{32}$/),
    });
    // The registration is bound by a keyed digest: the plan never shows the context or the kubeconfig path.
    expect(JSON.stringify(interrupt.preview)).not.toContain('kind-prod');
    expect(JSON.stringify(interrupt.preview)).not.toContain(kubeconfig);
    expect(interrupt.args.planHash).toBe(interrupt.preview.details.plan.planHash);

    // Production: not the requester; and the site rule on context.environment asks for two approvers.
    await expect(runtime.decide(id, { type: 'approve', callId: gate2.interrupt!.callId }, alice)).rejects.toThrow(
      /may not approve helm_install_chart/,
    );
    // The inbox answers as the decision will: the approver may not, the admin may.
    const mayApprove = async (who: Identity) => (await runtime.pendingApprovals(who)).find((p) => p.sessionId === id)?.mayApprove;
    expect(await mayApprove(carol)).toBe(false);
    expect(await mayApprove(dave)).toBe(true);
    await expect(runtime.decide(id, { type: 'approve', callId: gate2.interrupt!.callId }, carol)).rejects.toThrow(
      /production-clusters-admins-approve/,
    );
    const first = await runtime.decide(id, { type: 'approve', callId: gate2.interrupt!.callId }, dave);
    expect(first.interrupt?.type).toBe('approval');
    expect(first.messages.at(-1)?.text ?? '').not.toContain('Verified: release');
    const done = await runtime.decide(id, { type: 'approve', callId: gate2.interrupt!.callId }, erin);
    expect(done.messages.at(-1)?.text).toContain('Verified: release');

    const calls = fake.calls.slice(before).filter((argv) => !(argv[0] === 'helm' && argv[1] === 'version'));
    expect(calls.length).toBeGreaterThan(5);
    for (const argv of calls) {
      const flag = argv[0] === 'helm' ? '--kube-context' : '--context';
      expect(argv[argv.indexOf(flag) + 1], argv.join(' ')).toBe('kind-prod');
      expect(argv[argv.indexOf('--kubeconfig') + 1], argv.join(' ')).toBe(kubeconfig);
    }
    expect(calls.some((argv) => argv[0] === 'helm' && argv[1] === 'install')).toBe(true);
    expect(calls.some((argv) => argv[0] === 'kubectl')).toBe(true);

    const audit = new AuditLog(testStore.store);
    const events = await audit.list({ sessionId: id });
    const target = events.find((e) => e.type === 'helm_change_target');
    expect(target?.payload).toMatchObject({ tool: 'helm_install_chart', cluster: 'prod-eu', environment: 'production', namespace: 'shop' });
    const approved = events.filter((e) => JSON.stringify(e.payload).includes('"cluster":"prod-eu"'));
    expect(approved.map((e) => e.type)).toEqual(expect.arrayContaining(['helm_change_target']));
    expect(approved.length).toBeGreaterThan(1);
    await audit.close();
  });

  it('the only registered cluster is the default target, and a staging change needs one approver', async () => {
    await clusters.add({ name: 'staging-eu', kubeContext: 'kind-staging', environment: 'staging', namespaces: ['*'] });
    const before = fake.calls.length;
    const { id, gate2 } = await toApproval('install webapp as web version 1.0.0');
    expect((gate2.interrupt as unknown as { preview: { summary: string } }).preview.summary).toContain('on cluster staging-eu (staging)');
    expect((await runtime.pendingApprovals(carol)).find((p) => p.sessionId === id)?.mayApprove).toBe(true);
    const done = await runtime.decide(id, { type: 'approve', callId: gate2.interrupt!.callId }, carol);
    expect(done.messages.at(-1)?.text).toContain('Verified: release');
    const helmInstall = fake.calls
      .slice(before)
      .find((argv) => argv[0] === 'helm' && argv[1] === 'install' && !argv.some((a) => a.startsWith('--dry-run')));
    expect(helmInstall).toEqual(expect.arrayContaining(['--kube-context', 'kind-staging']));
  });

  it('an in-cluster target (no context, no kubeconfig) leaves helm and kubectl on their default', async () => {
    await clusters.add({ name: 'here', environment: 'dev', namespaces: ['*'] });
    const before = fake.calls.length;
    const { id, gate2 } = await toApproval('install webapp as web version 1.0.0');
    expect((gate2.interrupt as unknown as { preview: { summary: string } }).preview.summary).toContain('on cluster here (dev)');
    await runtime.decide(id, { type: 'approve', callId: gate2.interrupt!.callId }, carol);
    const calls = fake.calls.slice(before);
    expect(calls.some((argv) => argv[0] === 'helm' && argv[1] === 'install')).toBe(true);
    expect(calls.filter((argv) => argv.some((a) => ['--kube-context', '--context', '--kubeconfig'].includes(a)))).toEqual([]);
  });

  it('listings across namespaces show only the allowed ones', async () => {
    for (const command of ['install webapp as web version 1.0.0', 'install webapp as shop-web in shop version 1.0.0']) {
      const { id, gate2 } = await toApproval(command);
      await runtime.decide(id, { type: 'approve', callId: gate2.interrupt!.callId }, carol);
    }
    const list = async () => {
      const { id } = await runtime.startSession({ agent: 'helm', identity: alice });
      return (await runtime.send(id, 'list releases', alice)).messages.at(-1)?.text ?? '';
    };
    expect(await list()).toMatch(/^web\s+default/m);
    await clusters.add({ name: 'prod-eu', kubeContext: 'kind-prod', environment: 'production', namespaces: ['shop'] });
    const listed = await list();
    expect(listed).toMatch(/^shop-web\s+shop/m);
    expect(listed).not.toMatch(/^web\s+default/m);
  });

  it('refuses an unknown cluster, a namespace off the allow-list, and no cluster named when several are registered, before any helm command', async () => {
    await clusters.add({ name: 'staging-eu', kubeContext: 'kind-staging', environment: 'staging', namespaces: ['default'] });
    await clusters.add({ name: 'prod-eu', kubeContext: 'kind-prod', environment: 'production', namespaces: ['shop'] });
    const before = fake.calls.length;
    expect(await refusal('install webapp as web on nowhere')).toMatch(
      /Cluster "nowhere" is not a registered target: the registered clusters are prod-eu, staging-eu/,
    );
    expect(await refusal('install webapp as web in kube-system on prod-eu')).toMatch(
      /Namespace "kube-system" is not on the allow-list of cluster "prod-eu" \(shop\)/,
    );
    expect(await refusal('install webapp as web in shop')).toMatch(/several clusters are registered \(prod-eu, staging-eu\); name one/);
    expect(await refusal('status web in shop on nowhere')).toMatch(/not a registered target/);
    expect(fake.calls.slice(before).filter((argv) => !(argv[0] === 'helm' && argv[1] === 'version'))).toEqual([]);
  });

  it('with no cluster registered, naming one is refused and commands carry no context (the behaviour before clusters)', async () => {
    expect(await refusal('install webapp as web on prod-eu')).toMatch(/no cluster is registered/);
    const before = fake.calls.length;
    const { id, gate2 } = await toApproval('install webapp as web version 1.0.0');
    expect((gate2.interrupt as unknown as { preview: { details: { plan: object } } }).preview.details.plan).not.toHaveProperty('cluster');
    await runtime.decide(id, { type: 'approve', callId: gate2.interrupt!.callId }, carol);
    expect(fake.calls.slice(before).some((argv) => argv.includes('--kube-context') || argv.includes('--kubeconfig'))).toBe(false);
  });
});
