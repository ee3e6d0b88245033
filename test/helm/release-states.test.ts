import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HelmBackend } from '../../src/agents/helm/backends/backend.ts';
import { HelmCli } from '../../src/agents/helm/backends/cli/helm-cli.ts';
import { goJsonTime, goTimeString } from '../../src/agents/helm/backends/go-time.ts';
import { helmSimulatorMigrations } from '../../src/agents/helm/backends/simulator/migration.ts';
import { SimulatedCluster } from '../../src/agents/helm/backends/simulator/simulated-cluster.ts';
import { buildRepository, SOURCES_DIR } from '../../src/agents/helm/charts/build-repo.ts';
import { ChartRepository } from '../../src/agents/helm/charts/chart-repository.ts';
import { HelmService } from '../../src/agents/helm/service/helm-service.ts';
import { openStore, type Store } from '../../src/core/store/index.ts';
import { type InProcessFakeHelm, inProcessFakeHelm } from './fake-helm/install-fakes.ts';

// Why the fake `helm`: the states an interrupted Helm leaves (pending-*, uninstalling, a failed revision
// beside the deployed one) cannot be made with the real binary against the stub without killing it mid-write.

const TEST_CHARTS = new URL('./charts/', import.meta.url).pathname;

/** The demo charts plus the test charts (a hook chart), packaged into a throwaway repository. */
async function testRepository(dir: string): Promise<ChartRepository> {
  const sources = join(dir, 'sources');
  cpSync(SOURCES_DIR, sources, { recursive: true });
  cpSync(TEST_CHARTS, sources, { recursive: true });
  await buildRepository(join(dir, 'repo'), sources);
  return ChartRepository.open(join(dir, 'repo'));
}

describe.each(['simulator', 'v3', 'v4'] as const)('release states Helm records, on the %s backend', { timeout: 120_000 }, (kind) => {
  let dir: string;
  let store: Store;
  let cluster: SimulatedCluster;
  let backend: HelmBackend;
  let service: HelmService;
  let fake: InProcessFakeHelm | undefined;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'opsgate-release-states-'));
    fake = kind === 'simulator' ? undefined : await inProcessFakeHelm(kind);
    store = fake?.store ?? (await openStore({ sqlitePath: join(dir, 'cluster.db'), databaseUrl: '', migrations: helmSimulatorMigrations }));
    cluster = fake?.cluster ?? new SimulatedCluster(store);
    backend = fake ? new HelmCli({ helmPath: fake.helmPath, kubectlPath: fake.kubectlPath, run: fake.run }) : cluster;
    service = new HelmService(backend, await testRepository(dir), { sleep: async () => {} });
  });
  afterEach(async () => {
    if (fake) await fake.close();
    else await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function run(request: Parameters<HelmService['plan']>[0]) {
    const plan = await service.plan(request);
    return service.execute(request, plan.planHash);
  }
  const install = (values: Record<string, unknown> = { replicaCount: 2 }) =>
    run({ operation: 'install', release: 'web', namespace: 'default', chart: 'webapp', version: '1.1.0', values });

  it('hooks stay out of the plan: an upgrade of a chart with a pre-upgrade hook shows it as a hook, not as "create"', async () => {
    await run({ operation: 'install', release: 'app', namespace: 'default', chart: 'hooked' });
    const plan = await service.plan({ operation: 'upgrade', release: 'app', namespace: 'default', values: { replicaCount: 2 } });
    expect(plan.resources.create).toEqual([]);
    expect(plan.resources.change).toEqual(['Deployment/app-hooked']);
    expect(plan.hooks?.map(({ key, events }) => ({ key, events }))).toEqual([
      { key: 'Job/app-migrate', events: ['pre-upgrade', 'pre-install'] },
      { key: 'Pod/app-test-connection', events: ['test'] },
    ]);
    expect(plan.manifestDiff).not.toContain('app-migrate');
  });

  it('a chart that renders random values gets a plan that still executes; a real change still makes it stale', async () => {
    const request = { operation: 'install' as const, release: 'db', namespace: 'default', chart: 'secretive' };
    const plan = await service.plan(request);
    expect(plan.volatile).toEqual(['Secret/db-password']);
    expect(plan.risks.join(' ')).toContain('renders Secret/db-password differently every time');
    await expect(service.execute(request, plan.planHash)).resolves.toMatchObject({ status: { info: { status: 'deployed' } } });
    const upgrade = { operation: 'upgrade' as const, release: 'db', namespace: 'default', values: { replicaCount: 2 } };
    const approved = await service.plan(upgrade);
    await expect(service.execute({ ...upgrade, values: { replicaCount: 3 } }, approved.planHash)).rejects.toMatchObject({
      code: 'HELM_PLAN_STALE',
    });
  });

  it('pending-install can only be cleared by uninstall: the workflow says so instead of advising a rollback', async () => {
    await cluster.injectFault('stuck-pending', 'web');
    await expect(install()).rejects.toMatchObject({ code: 'HELM_OPERATION_FAILED' });
    const stuck = service.detectScenario('web', 'default');
    await expect(stuck).rejects.toMatchObject({ code: 'HELM_RELEASE_PENDING' });
    await expect(stuck).rejects.toThrow(/no earlier revision to roll back to; uninstall it first \("uninstall web"\)/);
  });

  it('uninstalling stops the workflow and says to run the uninstall again', async () => {
    await install();
    await cluster.injectFault('stuck-pending', 'web');
    await expect(run({ operation: 'uninstall', release: 'web', namespace: 'default' })).rejects.toMatchObject({
      code: 'HELM_OPERATION_FAILED',
    });
    await expect(service.detectScenario('web', 'default')).rejects.toThrow(/uninstalling .*run "uninstall web" again/);
  });

  it('a release uninstalled with its history kept is installed again with --replace at the next revision, not upgraded', async () => {
    await install();
    await cluster.uninstall('web', 'default', { keepHistory: true });
    await expect(service.detectScenario('web', 'default')).resolves.toMatchObject({ scenario: 'INSTALL', replaces: { version: 1 } });
    await expect(service.plan({ operation: 'upgrade', release: 'web', namespace: 'default' })).rejects.toMatchObject({
      code: 'HELM_RELEASE_NOT_FOUND',
    });
    const plan = await service.plan({ operation: 'install', release: 'web', namespace: 'default', chart: 'webapp', version: '1.1.0' });
    expect(plan).toMatchObject({ replace: true, nextRevision: 2 });
    await service.execute({ operation: 'install', release: 'web', namespace: 'default', chart: 'webapp', version: '1.1.0' }, plan.planHash);
    expect((await cluster.history('web', 'default')).map((h) => [h.revision, h.status])).toEqual([
      [1, 'superseded'],
      [2, 'deployed'],
    ]);
    if (fake) expect(readFileSync(fake.logPath, 'utf8')).toMatch(/helm install web \S+ --namespace default --replace/);
  });

  it('a failure while applying leaves the previous revision deployed and records a failed one; the next upgrade reuses the deployed values', async () => {
    await install({ replicaCount: 2 });
    await cluster.injectFault('apply-error', 'web');
    const failed = run({ operation: 'upgrade', release: 'web', namespace: 'default', values: { replicaCount: 5 } });
    await expect(failed).rejects.toMatchObject({ code: 'HELM_APPLY_FAILED' });
    await expect(failed).rejects.toThrow(/recorded the new revision as failed/);
    expect((await cluster.history('web', 'default')).map((h) => [h.revision, h.status])).toEqual([
      [1, 'deployed'],
      [2, 'failed'],
    ]);
    const next = await service.plan({ operation: 'upgrade', release: 'web', namespace: 'default', values: { image: { tag: '1.27.1' } } });
    expect(next.values).toEqual({ replicaCount: 2, image: { tag: '1.27.1' } });
    expect(next.risks).toContain('the current revision 2 is failed; its values are not reused');
    await cluster.injectFault('upgrade-timeout', 'web');
    await expect(run({ operation: 'upgrade', release: 'web', namespace: 'default' })).rejects.toMatchObject({ code: 'HELM_TIMEOUT' });
  });

  it('history is pruned at --history-max 10, never the last deployed revision', async () => {
    await install({ replicaCount: 1 });
    for (let replicas = 2; replicas <= 12; replicas++)
      await cluster.upgrade({ ...(await request(service)), values: { replicaCount: replicas } });
    const history = await backend.history('web', 'default');
    expect(history.map((h) => h.revision)).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(history.at(-1)?.status).toBe('deployed');
  });

  it('Phase 5 waits like helm --wait: a rollout the controller has not caught up with is polled until ready', async () => {
    await install();
    await cluster.injectFault('slow-rollout', 'web', '3');
    await run({ operation: 'upgrade', release: 'web', namespace: 'default', values: { replicaCount: 3 } });
    const report = await service.monitor('web', 'default', { intervalMs: 1 });
    expect(report.healthy).toBe(true);
    expect(report.polls).toBeGreaterThanOrEqual(3);
    expect(report.workloads).toEqual([{ kind: 'Deployment', name: 'web-webapp', ready: true, reason: '3 of 3 updated replicas ready' }]);
    expect(report.pods).toHaveLength(3);
  });

  it('times are printed the way Go prints them (no padded fraction)', async () => {
    await install();
    const [listed] = await backend.listReleases({ all: true });
    expect(listed?.updated).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d*[1-9])? \+0000 UTC$/);
    const [first] = await backend.history('web', 'default');
    expect(first?.updated).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d*[1-9])?Z$/);
  });

  it.runIf(kind !== 'simulator')(
    'real `helm status -o json` carries no chart; upgrade, rollback and uninstall plans still name it',
    async () => {
      await install();
      const raw = JSON.parse(
        await fake!.run(fake!.helmPath, ['status', 'web', '--namespace', 'default', '--output', 'json'], { timeoutMs: 10_000, env: {} }),
      );
      expect(raw.chart).toBeUndefined();
      await run({ operation: 'upgrade', release: 'web', namespace: 'default', values: { replicaCount: 3 } });
      const rollback = await service.plan({ operation: 'rollback', release: 'web', namespace: 'default', revision: 1 });
      expect(rollback.chart).toEqual({ name: 'webapp', version: '1.1.0', appVersion: '1.27.0' });
      const uninstall = await service.plan({ operation: 'uninstall', release: 'web', namespace: 'default' });
      expect(uninstall.chart).toMatchObject({ name: 'webapp', version: '1.1.0' });
    },
  );
});

async function request(service: HelmService) {
  const chart = await service.repository.load('webapp', '1.1.0');
  return {
    release: 'web',
    namespace: 'default',
    chart,
    chartArchive: service.repository.archivePath(service.repository.entry('webapp', '1.1.0')),
    values: {},
    createNamespace: false,
  };
}

describe('Go time formatting (Helm goldens)', () => {
  it('prints as `helm list` and `history -o json` do', () => {
    // list-all.txt (v3.21.4) and history.json goldens
    expect(goTimeString('2016-01-16T00:00:01.000Z')).toBe('2016-01-16 00:00:01 +0000 UTC');
    expect(goJsonTime('1977-09-02T22:04:05.000Z')).toBe('1977-09-02T22:04:05Z');
    expect(goJsonTime('2024-05-14T09:12:44.120Z')).toBe('2024-05-14T09:12:44.12Z');
  });
});
