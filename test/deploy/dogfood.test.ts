import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { helmAgent } from '../../src/agents/helm/index.ts';
import type { Identity } from '../../src/core/identity/index.ts';
import { createRuntime, type Runtime, type TurnResult } from '../../src/core/runtime/index.ts';
import { type KubeApiStub, startKubeApiStub } from '../../src/testing/kube-api-stub/index.ts';
import { realHelmBinaries } from '../../src/testing/real-helm-binaries.ts';
import { sqliteTestStore, type TestStore } from '../../src/testing/test-stores.ts';

// Dogfood: opsgate's Helm agent (CLI backend, the real Helm 4 binary) installs opsgate's own chart
// through both gates, against the Kubernetes API stub, then upgrades it: the keys the chart
// generated at install (`lookup`) survive the upgrade.
const root = resolve(import.meta.dirname, '../..');
const alice: Identity = { userId: 1, username: 'alice', roles: ['user'], channel: 'web' };
const carol: Identity = { userId: 2, username: 'carol', roles: ['approver'], channel: 'web' };
const lastText = (turn: TurnResult) => turn.messages.filter((m) => m.role === 'assistant').at(-1)?.text ?? '';

describe("opsgate's Helm agent installs opsgate's chart", () => {
  let stub: KubeApiStub;
  let home: string;
  let testStore: TestStore;
  let runtime: Runtime;
  const saved = { KUBECONFIG: process.env.KUBECONFIG, HELM_CACHE_HOME: process.env.HELM_CACHE_HOME };

  beforeAll(async () => {
    const { helm, kubectl } = realHelmBinaries('v4');
    home = mkdtempSync(join(tmpdir(), 'opsgate-dogfood-'));
    const charts = join(home, 'charts');
    mkdirSync(charts);
    execFileSync(helm, ['package', join(root, 'deploy/helm/opsgate'), '--destination', charts], { stdio: 'ignore' });
    execFileSync(helm, ['repo', 'index', charts], { stdio: 'ignore' });
    stub = await startKubeApiStub({
      namespaces: ['opsgate'],
      objects: [
        {
          apiVersion: 'v1',
          kind: 'Node',
          metadata: { name: 'node-1' },
          status: { conditions: [{ type: 'Ready', status: 'True' }] },
        },
      ],
    });
    writeFileSync(join(home, 'kubeconfig'), stub.kubeconfig(), { mode: 0o600 });
    // The CLI backend runs helm and kubectl with this process's environment, as `opsgate serve` would.
    process.env.KUBECONFIG = join(home, 'kubeconfig');
    process.env.HELM_CACHE_HOME = join(home, 'cache');
    testStore = await sqliteTestStore.create();
    runtime = await createRuntime({
      store: testStore.store,
      agents: [helmAgent],
      agentOptions: { helm: { backend: 'cli', charts, helmPath: helm, kubectlPath: kubectl } },
    });
  }, 120_000);

  afterAll(async () => {
    await runtime?.close();
    await testStore?.dispose();
    await stub?.close();
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    rmSync(home, { recursive: true, force: true });
  });

  async function throughBothGates(command: string) {
    const { id } = await runtime.startSession({ agent: 'helm', identity: alice });
    const gate1 = await runtime.send(id, command, alice);
    expect(gate1.interrupt?.type, lastText(gate1)).toBe('question');
    const gate2 = await runtime.decide(id, { type: 'answer', callId: gate1.interrupt!.callId, answer: 'yes' }, alice);
    expect(gate2.interrupt?.type, lastText(gate2)).toBe('approval');
    const done = await runtime.decide(id, { type: 'approve', callId: gate2.interrupt!.callId }, carol);
    expect(lastText(done), lastText(done)).toContain('Verified: release');
  }

  it('plans, is approved, installs, and an upgrade keeps the generated keys', async () => {
    await throughBothGates('install opsgate as ops in opsgate');
    const deployment = stub.object('apps/v1', 'Deployment', 'opsgate', 'ops-opsgate');
    expect(deployment?.spec).toMatchObject({ replicas: 2 });
    for (const [apiVersion, kind, name] of [
      ['v1', 'Service', 'ops-opsgate'],
      ['v1', 'ServiceAccount', 'ops-opsgate'],
      ['policy/v1', 'PodDisruptionBudget', 'ops-opsgate'],
      ['networking.k8s.io/v1', 'NetworkPolicy', 'ops-opsgate'],
    ] as const)
      expect(stub.object(apiVersion, kind, 'opsgate', name), `${kind}/${name}`).toBeDefined();
    const keys = stub.object('v1', 'Secret', 'opsgate', 'ops-opsgate-keys')?.data as Record<string, string> | undefined;
    expect(Object.keys(keys ?? {}).sort()).toEqual(['audit', 'cookie', 'metrics-token', 'secrets']);

    await throughBothGates('upgrade ops in opsgate set replicaCount=3');
    expect(stub.object('apps/v1', 'Deployment', 'opsgate', 'ops-opsgate')?.spec).toMatchObject({ replicas: 3 });
    expect(stub.object('v1', 'Secret', 'opsgate', 'ops-opsgate-keys')?.data).toEqual(keys);
  }, 300_000);
});
