import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HelmCli } from '../../src/agents/helm/backends/cli/helm-cli.ts';
import { classifyHelmError } from '../../src/agents/helm/backends/cli/parse-output.ts';
import { CommandFailed, execCommand } from '../../src/agents/helm/backends/cli/run-command.ts';
import { ChartRepository } from '../../src/agents/helm/charts/chart-repository.ts';
import { HelmService } from '../../src/agents/helm/service/helm-service.ts';
import { type KubeApiStub, type KubeObject, startKubeApiStub } from '../../src/testing/kube-api-stub/index.ts';
import { type HelmMajor, realHelmBinaries } from '../../src/testing/real-helm-binaries.ts';

// Issue 20 "Tests that would have caught this": the real kubectl against a stub API server, for
// what the fakes cannot show (review 2026-11-24-helm §2 C3, L2; §3 item 2). The kubectl builds
// shipped with Helm 3.17 (kubectl 1.32.3) and Helm 4.1 (kubectl 1.35.2), against the project's
// API server stub (src/testing/kube-api-stub) posing as a 1.29 server.

const deployment: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web-webapp', namespace: 'default', generation: 1, labels: { app: 'web' } },
  spec: { replicas: 1, selector: { matchLabels: { app: 'web' } } },
  status: { observedGeneration: 1, replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1 },
};
const pod: KubeObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web-webapp-5d9c-x2k', namespace: 'default', labels: { app: 'web' } },
  status: { phase: 'Running', containerStatuses: [{ name: 'web', ready: true, restartCount: 0, state: { running: {} } }] },
};
// The release's manifest names a Job deleted by its ttlSecondsAfterFinished.
const manifest = [
  '---',
  'apiVersion: apps/v1',
  'kind: Deployment',
  'metadata:',
  '  name: web-webapp',
  'spec: {}',
  '---',
  'apiVersion: batch/v1',
  'kind: Job',
  'metadata:',
  '  name: web-migrate',
  'spec:',
  '  ttlSecondsAfterFinished: 60',
  '',
].join('\n');

describe.each(['v3', 'v4'] as const)('the real kubectl shipped with Helm %s against the API server stub', (major: HelmMajor) => {
  const kubectl = realHelmBinaries(major).kubectl;
  let server: KubeApiStub | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  async function cli(options: { forbidden?: string[]; currentContext?: boolean; kubeContext?: string } = {}) {
    server = await startKubeApiStub({
      objects: [deployment, pod],
      kubernetesVersion: 'v1.29.4',
      ...(options.forbidden ? { forbid: options.forbidden } : {}),
    });
    dir = mkdtempSync(join(tmpdir(), 'opsgate-kubectl-'));
    const kubeconfig = join(dir, 'config');
    writeFileSync(kubeconfig, server.kubeconfig({ currentContext: options.currentContext ?? true }), { mode: 0o600 });
    const env = { ...process.env, KUBECONFIG: kubeconfig, KUBECACHEDIR: join(dir, 'cache'), HOME: dir };
    return {
      env,
      backend: new HelmCli({ kubectlPath: kubectl, env, ...(options.kubeContext ? { kubeContext: options.kubeContext } : {}) }),
    };
  }

  it('L2: a workload gone from the cluster (TTL-deleted Job) does not fail the health read; without --ignore-not-found kubectl exits 1', async () => {
    const { backend, env } = await cli();
    const health = await backend.health('web', 'default', manifest);
    expect(health.workloads).toEqual([expect.objectContaining({ kind: 'Deployment', name: 'web-webapp', ready: true })]);
    expect(health.pods).toEqual([expect.objectContaining({ name: 'web-webapp-5d9c-x2k', status: 'Running', ready: true })]);
    // What opsgate did before: the same multi-get without the flag fails with kubectl's NotFound text.
    const bare = await execCommand(kubectl, ['get', 'deployment/web-webapp', 'job/web-migrate', '--namespace', 'default', '-o', 'json'], {
      timeoutMs: 60_000,
      env,
    }).catch((error: unknown) => error);
    expect(bare).toBeInstanceOf(CommandFailed);
    expect((bare as CommandFailed).stderr).toContain('Error from server (NotFound): jobs.batch "web-migrate" not found');
  });

  it('C3: a namespace-scoped identity (nodes and namespaces Forbidden) still gets cluster info and passes the prerequisites', async () => {
    const { backend } = await cli({ forbidden: ['nodes', 'namespaces'] });
    const info = await backend.clusterInfo();
    expect(info).toEqual({ context: 'stub', kubernetesVersion: 'v1.29.4' });
    const refused = await backend.listNamespaces().catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'HELM_FORBIDDEN' });
    expect(String(refused)).toContain(
      'namespaces is forbidden: User "system:serviceaccount:team-a:deployer" cannot list resource "namespaces"',
    );
    const prerequisites = await new HelmService(backend, await ChartRepository.open()).checkPrerequisites({
      chart: 'webapp',
      namespace: 'default',
    });
    expect(prerequisites.ok).toBe(true);
    expect(prerequisites.checks.map((check) => check.detail).join(' ')).toMatch(/nodes are not readable.*namespaces are not listable/);
  });

  it('C3: no current-context: kubectl says "current-context is not set", which opsgate reads as in-cluster; a configured context is used instead', async () => {
    const { backend, env } = await cli({ currentContext: false, kubeContext: 'stub' });
    const missing = await execCommand(kubectl, ['config', 'current-context'], { timeoutMs: 60_000, env }).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(CommandFailed);
    const classified = classifyHelmError('config', `${(missing as CommandFailed).stderr}\n${(missing as CommandFailed).message}`);
    // The exact test clusterInfo() applies to decide "in-cluster".
    expect(String(classified.fields.detail)).toMatch(/current-context is not set/);
    expect(await backend.clusterInfo()).toMatchObject({ context: 'stub', kubernetesVersion: 'v1.29.4' });
  });
});
