import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HelmCli } from '../../src/agents/helm/backends/cli/helm-cli.ts';
import { buildRepository } from '../../src/agents/helm/charts/build-repo.ts';
import { ChartRepository } from '../../src/agents/helm/charts/chart-repository.ts';
import { chartReference } from '../../src/agents/helm/mcp/tool-catalog.ts';
import { HelmService } from '../../src/agents/helm/service/helm-service.ts';
import type { FakeChartSources } from './fake-helm/fake-chart-sources.ts';
import { type InProcessFakeHelm, inProcessFakeHelm } from './fake-helm/install-fakes.ts';

// Why the fake `helm`: OCI registries (oci://, a tag pushed again) cannot run here; the `helm repo` path runs
// on the real Helm 3.17/4.1 in chart-origin-real-helm.test.ts.

// Issue 20 C4 (review 2026-11-24-helm §2 C4): releases already on a real cluster come from `helm
// repo` repositories or OCI registries, not from opsgate's one repository. The charts are
// test/helm/charts (hooked, operator, secretive) packed by buildRepository; `helm pull` and
// `helm search repo` answer with Helm's texts (origins in fake-helm/fake-chart-sources.ts), and
// their flags are checked against Helm's own tables (fixtures/helm-flags.json, `pull` and `search repo`).

const TEST_CHARTS = new URL('./charts/', import.meta.url).pathname;
let archives: string;

beforeAll(async () => {
  archives = mkdtempSync(join(tmpdir(), 'opsgate-external-charts-'));
  await buildRepository(archives, TEST_CHARTS);
});
afterAll(() => rmSync(archives, { recursive: true, force: true }));

describe('charts from outside opsgate (C4)', () => {
  let fake: InProcessFakeHelm | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });

  async function service(charts: FakeChartSources, version = 'v3') {
    fake = await inProcessFakeHelm(version, { charts });
    const cli = new HelmCli({ helmPath: fake.helmPath, kubectlPath: fake.kubectlPath, run: fake.run });
    return new HelmService(cli, await ChartRepository.open());
  }

  /** What a team did before opsgate: `helm install cache partners/hooked` (here the pulled archive). */
  async function installedElsewhere(release: string, chart: string) {
    await fake!.run(fake!.helmPath, ['install', release, join(archives, `${chart}.tgz`), '--namespace', 'default', '--output', 'json'], {
      timeoutMs: 60_000,
      env: process.env,
    });
  }

  const pulls = () => fake!.calls.filter((argv) => argv[0] === 'helm' && argv[1] === 'pull');

  it.each(['v3', 'v4'])('upgrades a release whose chart came from a `helm repo` repository (Helm %s)', async (version) => {
    const helm = await service({ repositories: { partners: archives } }, version);
    await installedElsewhere('cache', 'hooked-1.0.0');
    const upgrade = { operation: 'upgrade' as const, release: 'cache', namespace: 'default', values: { replicaCount: 2 } };
    const plan = await helm.plan(upgrade);
    expect(plan.chart).toMatchObject({
      name: 'hooked',
      version: '1.0.0',
      source: 'partners/hooked',
      digest: expect.stringMatching(/^sha256:/),
    });
    expect(plan.risks.join(' ')).toMatch(/found in the `helm repo` repository partners\/hooked by name, version and appVersion/);
    const search = fake!.calls.find((argv) => argv[1] === 'search')!;
    expect(search.slice(0, 7)).toEqual(['helm', 'search', 'repo', '\\v[^/\\v]+/hooked\\v', '--regexp', '--version', '1.0.0']);
    const done = await helm.execute(upgrade, plan.planHash);
    expect(done.status).toMatchObject({ version: 2, info: { status: 'deployed' } });
    expect(done.status?.config).toEqual({ replicaCount: 2 });
    // Pulled once: the archive planned is the archive installed.
    expect(pulls()).toHaveLength(1);
    expect(pulls()[0]!.slice(0, 5)).toEqual(['helm', 'pull', 'partners/hooked', '--version', '1.0.0']);
  });

  it('asks for the source when several `helm repo` repositories hold the chart, and takes REPO/NAME', async () => {
    const helm = await service({ repositories: { partners: archives, mirror: archives } });
    await installedElsewhere('cache', 'hooked-1.0.0');
    const upgrade = { operation: 'upgrade' as const, release: 'cache', namespace: 'default' };
    await expect(helm.plan(upgrade)).rejects.toMatchObject({ code: 'HELM_CHART_SOURCE_AMBIGUOUS' });
    await expect(helm.plan(upgrade)).rejects.toThrow(/mirror\/hooked, partners\/hooked|partners\/hooked, mirror\/hooked/);
    const plan = await helm.plan({ ...upgrade, chart: 'mirror/hooked' });
    expect(plan.chart).toMatchObject({ source: 'mirror/hooked', version: '1.0.0' });
    expect(plan.risks.join(' ')).not.toMatch(/found in the/);
  });

  it('names the way out when no repository has the chart (HELM_CHART_SOURCE_UNKNOWN, not "not in the repository")', async () => {
    const helm = await service({});
    await installedElsewhere('cache', 'hooked-1.0.0');
    const error = await helm.plan({ operation: 'upgrade', release: 'cache', namespace: 'default' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'HELM_CHART_SOURCE_UNKNOWN' });
    expect(String(error)).toMatch(/hooked-1\.0\.0 of release cache.*REPO\/NAME.*oci:\/\//);
  });

  it('installs and upgrades from an OCI registry (oci://), binding the archive digest', async () => {
    const helm = await service({ registries: { 'oci://registry.example.com/charts': archives } });
    expect(chartReference.safeParse('oci://registry.example.com/charts/secretive').success).toBe(true);
    expect(chartReference.safeParse('oci://localhost:5000/a/b').success).toBe(true);
    expect(chartReference.safeParse('http://registry.example.com/x').success).toBe(false);
    const install = {
      operation: 'install' as const,
      release: 'vault',
      namespace: 'default',
      chart: 'oci://registry.example.com/charts/hooked',
      version: '1.0.0',
    };
    const plan = await helm.plan(install);
    expect(plan.chart).toMatchObject({ name: 'hooked', source: 'oci://registry.example.com/charts/hooked' });
    await expect(helm.execute(install, plan.planHash)).resolves.toMatchObject({ status: { version: 1, info: { status: 'deployed' } } });
    const info = await helm.chartInfo('oci://registry.example.com/charts/hooked');
    expect(info).toMatchObject({ repository: 'oci://registry.example.com/charts/hooked', chart: { name: 'hooked', version: '1.0.0' } });
    expect(pulls().map((argv) => argv.slice(0, 5))).toEqual([
      ['helm', 'pull', 'oci://registry.example.com/charts/hooked', '--version', '1.0.0'],
      ['helm', 'pull', 'oci://registry.example.com/charts/hooked', '--destination', expect.any(String)],
    ]);
  });

  it("reports Helm's own pull failures: an unknown `helm repo`, a missing OCI tag", async () => {
    const helm = await service({ registries: { 'oci://registry.example.com/charts': archives } });
    const plan = (chart: string, version?: string) =>
      helm.plan({ operation: 'install', release: 'x', namespace: 'default', chart, ...(version ? { version } : {}) });
    await expect(plan('nope/redis')).rejects.toMatchObject({ code: 'HELM_CHART_PULL_FAILED' });
    await expect(plan('nope/redis')).rejects.toThrow(/repo nope not found.*helm repo update/);
    await expect(plan('oci://registry.example.com/charts/hooked', '9.9.9')).rejects.toThrow(
      /failed to perform "FetchReference" on source: registry\.example\.com\/charts\/hooked:9\.9\.9: not found/,
    );
  });

  it('another opsgate process that pulls a re-pushed tag sees another archive: the approved plan is stale', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'opsgate-registry-'));
    try {
      const registry = join(scratch, 'registry');
      await buildRepository(registry, TEST_CHARTS);
      const helm = await service({ registries: { 'oci://registry.example.com/charts': registry } });
      const install = {
        operation: 'install' as const,
        release: 'web',
        namespace: 'default',
        chart: 'oci://registry.example.com/charts/hooked',
        version: '1.0.0',
      };
      const plan = await helm.plan(install);
      // The tag 1.0.0 is pushed again (OCI tags are mutable) with a file no template reads: the
      // manifest is the same, only the archive's digest tells the charts apart.
      cpSync(join(TEST_CHARTS, 'hooked-1.0.0'), join(scratch, 'sources', 'hooked-1.0.0'), { recursive: true });
      writeFileSync(join(scratch, 'sources', 'hooked-1.0.0', 'README.md'), 'pushed again\n');
      await buildRepository(registry, join(scratch, 'sources'));
      const other = new HelmService(
        new HelmCli({ helmPath: fake!.helmPath, kubectlPath: fake!.kubectlPath, run: fake!.run }),
        helm.repository,
      );
      const again = await other.plan(install);
      expect(again.resources).toEqual(plan.resources);
      expect(again.chart?.digest).not.toBe(plan.chart?.digest);
      await expect(other.execute(install, plan.planHash)).rejects.toMatchObject({ code: 'HELM_PLAN_STALE' });
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

describe('the simulator and outside charts', () => {
  it("refuses REPO/NAME of another repository and oci:// with what to do (the simulator has opsgate's repository only)", async () => {
    const fake = await inProcessFakeHelm('v3');
    try {
      const helm = new HelmService(fake.cluster, await ChartRepository.open());
      await expect(
        helm.plan({ operation: 'install', release: 'x', namespace: 'default', chart: 'oci://r.example/c/x' }),
      ).rejects.toMatchObject({
        code: 'HELM_CHART_SOURCE_UNSUPPORTED',
      });
      await expect(helm.plan({ operation: 'install', release: 'x', namespace: 'default', chart: 'bitnami/nginx' })).rejects.toThrow(
        /OPSGATE_HELM_BACKEND=cli/,
      );
      await expect(helm.plan({ operation: 'install', release: 'x', namespace: 'default', chart: 'demo/webapp' })).resolves.toMatchObject({
        chart: { name: 'webapp' },
      });
    } finally {
      await fake.close();
    }
  });
});
