import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { HelmCli } from '../../src/agents/helm/backends/cli/helm-cli.ts';
import type { SimulatedCluster } from '../../src/agents/helm/backends/simulator/simulated-cluster.ts';
import { ChartRepository } from '../../src/agents/helm/charts/chart-repository.ts';
import { HelmService } from '../../src/agents/helm/service/helm-service.ts';
import { type FakeHelmVersion, type InProcessFakeHelm, inProcessFakeHelm } from './fake-helm/install-fakes.ts';

// Why the fake `helm`: the argv and output shapes per Helm version are checked against Helm's own flag tables
// without a cluster, in-process and fast; the same commands run on the real Helm 3.17/4.1 in
// workflow-helm3/4.test.ts.

describe.each(['v3', 'v4'] as const)('CLI backend against a fake helm %s and kubectl (Helm output shapes)', (version: FakeHelmVersion) => {
  let fake: InProcessFakeHelm;
  let cli: HelmCli;
  let cluster: SimulatedCluster;
  let repository: ChartRepository;

  beforeEach(async () => {
    fake = await inProcessFakeHelm(version);
    cli = new HelmCli({ helmPath: fake.helmPath, kubectlPath: fake.kubectlPath, run: fake.run });
    cluster = fake.cluster;
    repository = await ChartRepository.open();
  });
  afterEach(async () => {
    await fake.close();
  });

  const invocations = (): string[][] => fake.calls;

  async function request(chartVersion = '1.1.0', values: Record<string, unknown> = { replicaCount: 2 }) {
    const chart = await repository.load('webapp', chartVersion);
    return {
      release: 'web',
      namespace: 'default',
      chart,
      chartArchive: repository.archivePath(repository.entry('webapp', chartVersion)),
      values,
      createNamespace: true,
    };
  }

  it('the Helm version is read once; list passes --all only to Helm 3 (Helm 4 removed it and lists every state)', async () => {
    await cli.install(await request());
    expect(await cli.listReleases({ all: true })).toMatchObject([{ name: 'web', status: 'deployed', chart: 'webapp-1.1.0' }]);
    await cli.listReleases({ all: true, namespace: 'default' });
    const lists = invocations().filter((argv) => argv[1] === 'list');
    expect(invocations().filter((argv) => argv[1] === 'version')).toHaveLength(1);
    expect(lists[0]).toEqual([
      'helm',
      'list',
      ...(version === 'v3' ? ['--all'] : []),
      '--all-namespaces',
      '--max',
      '0',
      '--output',
      'json',
    ]);
    expect(lists[1]).toEqual([
      'helm',
      'list',
      ...(version === 'v3' ? ['--all'] : []),
      '--namespace',
      'default',
      '--max',
      '0',
      '--output',
      'json',
    ]);
  });

  it('status carries no chart, so its name and version come from `helm get metadata` of that revision, read once per revision', async () => {
    await cli.install(await request());
    const status = await cli.status('web', 'default');
    expect(status.chart.metadata).toMatchObject({ name: 'webapp', version: '1.1.0', appVersion: '1.27.0' });
    expect(invocations().at(-2)).toEqual(['helm', 'status', 'web', '--namespace', 'default', '--output', 'json']);
    expect(invocations().at(-1)).toEqual([
      'helm',
      'get',
      'metadata',
      'web',
      '--namespace',
      'default',
      '--revision',
      '1',
      '--output',
      'json',
    ]);
    const reads = invocations().length;
    expect((await cli.status('web', 'default')).chart.metadata.version).toBe('1.1.0');
    expect(invocations().slice(reads)).toEqual([['helm', 'status', 'web', '--namespace', 'default', '--output', 'json']]);
    await expect(cli.status('missing', 'default')).rejects.toMatchObject({ code: 'HELM_RELEASE_NOT_FOUND' });
  });

  it('install and upgrade wait like `helm --wait` (Jobs too) with the complete values as JSON and --reset-values', async () => {
    const values = { replicaCount: 3, ingress: { enabled: 'yes' }, tls: 'off', region: 'no' };
    await cli.install(await request('1.0.0', values));
    const install = invocations().find((argv) => argv[1] === 'install')!;
    expect(install.slice(1, 7)).toEqual([
      'install',
      'web',
      repository.archivePath(repository.entry('webapp', '1.0.0')),
      '--namespace',
      'default',
      '--create-namespace',
    ]);
    expect(install).toEqual(expect.arrayContaining(['--wait', '--wait-for-jobs', '--timeout', '300s']));
    await cli.upgrade(await request('1.1.0', values));
    const upgrade = invocations().find((argv) => argv[1] === 'upgrade')!;
    expect(upgrade).toContain('--reset-values');
    expect(upgrade).not.toContain('--reuse-values');
    expect(upgrade).toEqual(expect.arrayContaining(['--wait', '--wait-for-jobs', '--timeout', '300s']));
    // Helm reads values as YAML 1.1, where an unquoted yes/off/no is a boolean: the file is JSON, and arrived intact.
    expect((await cluster.status('web', 'default')).config).toEqual(values);
    expect(parse(JSON.stringify(values), { version: '1.1' })).toEqual(values);
  });

  it("a changing command may run longer than Helm's own --timeout, so that Helm times out first and records the revision", () => {
    expect(cli.processLimitMs()).toBe(360_000);
    expect(cli.processLimitMs(600)).toBe(660_000);
  });

  it('plans render with --dry-run=server at the real next revision and change nothing', async () => {
    await cli.install(await request('1.0.0'));
    const rendered = await cli.render({ ...(await request('1.1.0')), revision: 2, isUpgrade: true });
    expect(rendered.manifest).toContain('kind: Deployment');
    const dryRun = invocations().find((argv) => argv.includes('--dry-run=server'))!;
    expect(dryRun.slice(1, 3)).toEqual(['upgrade', 'web']);
    expect(invocations().some((argv) => argv[1] === 'template')).toBe(false);
    expect((await cluster.history('web', 'default')).map((h) => h.revision)).toEqual([1]);
  });

  it("health reads the manifest's workloads by kind/name and their pods by each workload's selector", async () => {
    const status = await cli.install(await request());
    const health = await cli.health('web', 'default', status.manifest);
    expect(health.workloads).toEqual([{ kind: 'Deployment', name: 'web-webapp', ready: true, reason: '2 of 2 updated replicas ready' }]);
    expect(health.pods).toHaveLength(2);
    const kubectl = invocations().filter((argv) => argv[0] === 'kubectl');
    expect(kubectl[0]).toEqual(['kubectl', 'get', 'deployment/web-webapp', '--namespace', 'default', '--ignore-not-found', '-o', 'json']);
    expect(kubectl[1]?.slice(0, 5)).toEqual(['kubectl', 'get', 'pods', '--namespace', 'default']);
  });

  it('rollback and uninstall wait and are confirmed by re-reading history and status', async () => {
    const service = new HelmService(cli, repository);
    await cli.install(await request('1.0.0'));
    await cli.upgrade(await request('1.1.0'));
    await cli.rollback('web', 'default', 1);
    expect(invocations().find((argv) => argv[1] === 'rollback')).toEqual([
      'helm',
      'rollback',
      'web',
      '1',
      '--namespace',
      'default',
      '--wait',
      '--wait-for-jobs',
      '--timeout',
      '300s',
    ]);
    expect((await cli.history('web', 'default')).at(-1)).toMatchObject({
      revision: 3,
      chart: 'webapp-1.0.0',
      description: 'Rollback to 1',
    });
    await expect(cli.rollback('web', 'default', 9)).rejects.toMatchObject({ code: 'HELM_REVISION_NOT_FOUND' });
    await cli.uninstall('web', 'default');
    await expect(service.detectScenario('web', 'default')).resolves.toMatchObject({ scenario: 'INSTALL' });
  });

  it("an unreachable cluster stops the scenario check instead of installing; Helm's own errors map to their codes", async () => {
    const service = new HelmService(cli, repository);
    await cluster.injectFault('unreachable');
    await expect(service.detectScenario('web', 'default')).rejects.toMatchObject({ code: 'HELM_CLUSTER_UNREACHABLE' });
    await cluster.clearFaults();
    await cli.install(await request());
    await expect(cli.install(await request())).rejects.toMatchObject({ code: 'HELM_NAME_IN_USE' });
    await cluster.injectFault('stuck-pending', 'web');
    await expect(cli.upgrade(await request())).rejects.toMatchObject({ code: 'HELM_OPERATION_FAILED' });
    await expect(cli.upgrade(await request())).rejects.toMatchObject({ code: 'HELM_OPERATION_IN_PROGRESS' });
    expect(invocations().some((argv) => argv[1] === 'install' && argv.length > 3 && argv[2] === 'web')).toBe(true);
  });
});
