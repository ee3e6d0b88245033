import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HelmCli } from '../../src/agents/helm/backends/cli/helm-cli.ts';
import { parseHelmHooks } from '../../src/agents/helm/backends/cli/parse-output.ts';
import { buildRepository, SOURCES_DIR } from '../../src/agents/helm/charts/build-repo.ts';
import { ChartRepository } from '../../src/agents/helm/charts/chart-repository.ts';
import { parseManifest } from '../../src/agents/helm/charts/render-chart.ts';
import { releaseName } from '../../src/agents/helm/mcp/tool-catalog.ts';
import { HelmService, splitChartString } from '../../src/agents/helm/service/helm-service.ts';
import { buildPlan } from '../../src/agents/helm/service/plan.ts';
import { type InProcessFakeHelm, inProcessFakeHelm } from './fake-helm/install-fakes.ts';

// Why the fake `helm`: it makes what the real binaries against the stub cannot: a Helm older than 3.13 (C5;
// no such binary here), in-cluster config without a context (a pod's ServiceAccount files), a Job deleted
// between Helm's answer and kubectl's read (L2); N1 runs on the real binaries in workflow-cases.ts.

// Issue 20 (review 2026-11-24-helm): what a team meets the first day opsgate runs against its own
// cluster. Origins: C3 and C5 from §2 "Certain breaks", L1 and L2 from "Likely breaks"; error
// texts are kubectl 1.32.4's (the review ran Debian's kubectl against a stub API server).

const install = { operation: 'install' as const, release: 'web', namespace: 'default', chart: 'webapp', version: '1.1.0' };

describe('Helm on a real cluster, day one', () => {
  let fake: InProcessFakeHelm | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });

  async function service(options: Parameters<typeof inProcessFakeHelm>[1] = {}, version = 'v3') {
    fake = await inProcessFakeHelm(version, options);
    const cli = new HelmCli({ helmPath: fake.helmPath, kubectlPath: fake.kubectlPath, run: fake.run });
    return new HelmService(cli, await ChartRepository.open());
  }

  it('C5: Helm before 3.13 is refused up front with what to do (no get metadata, no --dry-run=server there)', async () => {
    const helm = await service({}, 'v3.12.3+g3a31588');
    await expect(helm.plan(install)).rejects.toMatchObject({ code: 'HELM_VERSION_UNSUPPORTED' });
    await expect(helm.plan(install)).rejects.toThrow(/Helm 3\.13 or newer.*v3\.12\.3.*OPSGATE_HELM_PATH/);
    expect(fake!.calls.filter((argv) => argv[0] === 'helm').map((argv) => argv[1])).toEqual(['version']);
    await fake!.close();
    const newer = await service({}, 'v3.13.0+g825e86f');
    await expect(newer.plan(install)).resolves.toMatchObject({ operation: 'install' });
  });

  it('C3: a namespace-scoped ServiceAccount plans and installs: nodes and namespaces are not required', async () => {
    const helm = await service({ kubectl: { namespaceScoped: true } });
    const plan = await helm.plan(install);
    const prerequisites = await helm.checkPrerequisites({ chart: 'webapp', namespace: 'default' });
    expect(prerequisites.ok).toBe(true);
    expect(prerequisites.checks.map((check) => check.detail).join(' ')).toMatch(/nodes are not readable.*namespaces are not listable/);
    await expect(helm.execute(install, plan.planHash)).resolves.toMatchObject({ status: { info: { status: 'deployed' } } });
  });

  it('C3: in a pod (in-cluster config, no current-context) the context is "in-cluster" and planning works', async () => {
    const helm = await service({ kubectl: { inCluster: true } });
    const info = await helm.backend.clusterInfo();
    expect(info.context).toBe('in-cluster');
    await expect(helm.plan(install)).resolves.toMatchObject({ operation: 'install' });
  });

  it('L2: a workload gone from the cluster (a TTL-deleted Job) does not fail the health read (--ignore-not-found)', async () => {
    const helm = await service();
    await helm.execute(install, (await helm.plan(install)).planHash);
    const status = await helm.backend.status('web', 'default');
    const gone = `${status.manifest}\n---\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: web-migrate\nspec:\n  ttlSecondsAfterFinished: 60\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{ name: m, image: busybox }]\n`;
    const health = await helm.backend.health('web', 'default', gone);
    expect(health.workloads.map((w) => w.name)).toEqual(['web-webapp']);
    const get = fake!.calls.find((argv) => argv[0] === 'kubectl' && argv.includes('job/web-migrate'))!;
    expect(get).toEqual(expect.arrayContaining(['--ignore-not-found', '--namespace', 'default']));
  });

  it('L2: a workload with its own metadata.namespace is read in that namespace', async () => {
    const helm = await service();
    await helm.execute(install, (await helm.plan(install)).planHash);
    const manifest = 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: agent\n  namespace: monitoring\nspec: {}\n';
    await helm.backend.health('web', 'default', manifest);
    expect(fake!.calls.at(-1)).toEqual([
      'kubectl',
      'get',
      'deployment/agent',
      '--namespace',
      'monitoring',
      '--ignore-not-found',
      '-o',
      'json',
    ]);
  });
});

describe('real-world manifest shapes', () => {
  it('L1: duplicate mapping keys (neo4j, infinispan charts) parse as Helm reads them: the last wins', () => {
    const manifest = [
      '---',
      '# Source: neo4j/templates/svc.yaml',
      'apiVersion: v1',
      'kind: Service',
      'metadata:',
      '  name: db',
      '  labels:',
      '    app: neo4j',
      '    app: neo4j-db',
      'spec:',
      '  ports: [{ port: 7687 }]',
    ].join('\n');
    const [service] = parseManifest(manifest);
    expect((service!.object.metadata as { labels: Record<string, string> }).labels).toEqual({ app: 'neo4j-db' });
    const plan = buildPlan({
      operation: 'upgrade',
      release: 'db',
      namespace: 'default',
      chart: { name: 'neo4j', version: '5.0.0', appVersion: '5' },
      currentRevision: 1,
      nextRevision: 2,
      currentManifest: manifest,
      proposedManifest: manifest.replace('7687', '7688'),
      values: {},
    });
    expect(plan.resources.change).toEqual(['Service/db']);
  });

  // Review 2026-11-24-helm §2 "Cosmetic": plan keys were `Kind/name`, so the same name in two
  // namespaces (or two groups' kinds) collapsed into one entry. Helm keeps objects apart by
  // group, kind, namespace and name (pkg/kube ResourceList).
  it('plan keys keep apart the same name in another namespace and the same kind of another API group', () => {
    const object = (apiVersion: string, kind: string, namespace?: string) =>
      [
        '---',
        `apiVersion: ${apiVersion}`,
        `kind: ${kind}`,
        'metadata:',
        '  name: web',
        ...(namespace ? [`  namespace: ${namespace}`] : []),
        'spec: {}',
        '',
      ].join('\n');
    const proposed = [
      object('v1', 'ConfigMap'),
      object('v1', 'ConfigMap', 'monitoring'),
      object('cert-manager.io/v1', 'Certificate'),
      object('acme.example.com/v1', 'Certificate'),
      object('networking.k8s.io/v1', 'Ingress'),
    ].join('');
    const plan = buildPlan({
      operation: 'install',
      release: 'web',
      namespace: 'default',
      currentManifest: '',
      proposedManifest: proposed,
      values: {},
    });
    expect(plan.resources.create).toEqual([
      'Certificate.acme.example.com/web',
      'Certificate.cert-manager.io/web',
      'ConfigMap/monitoring/web',
      'ConfigMap/web',
      'Ingress/web',
    ]);
    // Naming the release's own namespace explicitly is the same object.
    const upgrade = buildPlan({
      operation: 'upgrade',
      release: 'web',
      namespace: 'default',
      currentRevision: 1,
      nextRevision: 2,
      currentManifest: object('v1', 'ConfigMap'),
      proposedManifest: object('v1', 'ConfigMap', 'default'),
      values: {},
    });
    expect(upgrade.resources).toMatchObject({ create: [], delete: [], change: ['ConfigMap/web'] });
  });

  it('helm get hooks: events from helm.sh/hook, generateName hooks keep a key', () => {
    const output = [
      '---',
      '# Source: app/templates/migrate.yaml',
      'apiVersion: batch/v1',
      'kind: Job',
      'metadata:',
      '  generateName: app-migrate-',
      '  annotations:',
      '    "helm.sh/hook": pre-upgrade,pre-rollback',
      '    "helm.sh/hook-delete-policy": before-hook-creation',
      '---',
      '# Source: app/templates/tests/test.yaml',
      'apiVersion: v1',
      'kind: Pod',
      'metadata:',
      '  name: app-test',
      '  annotations:',
      '    "helm.sh/hook": test',
    ].join('\n');
    // Each hook also carries its text (issue 20 M3); here: which hooks and events.
    expect(parseHelmHooks(output).map(({ key, events }) => ({ key, events }))).toEqual([
      { key: 'Job/app-migrate-', events: ['pre-upgrade', 'pre-rollback'] },
      { key: 'Pod/app-test', events: ['test'] },
    ]);
  });
});

describe("the fake helm takes Helm's own flag tables per command and version (fixtures/helm-flags.json)", () => {
  const refused = async (version: string, argv: string[]) => {
    const fake = await inProcessFakeHelm(version);
    try {
      return await fake.run(fake.helmPath, argv, { timeoutMs: 10_000, env: {} }).then(
        () => 'accepted',
        (error: { stderr: string }) => error.stderr.trim(),
      );
    } finally {
      await fake.close();
    }
  };

  it.each([
    ['v3.21.4', ['uninstall', 'web', '--wait-for-jobs'], 'Error: unknown flag: --wait-for-jobs'],
    ['v3.21.4', ['install', 'web', 'chart.tgz', '--reset-values'], 'Error: unknown flag: --reset-values'],
    ['v3.21.4', ['upgrade', 'web', 'chart.tgz', '--replace'], 'Error: unknown flag: --replace'],
    ['v4.2.4', ['list', '--all', '--output', 'json'], 'Error: unknown flag: --all'],
    [
      'v3.12.3',
      ['install', 'web', 'chart.tgz', '--dry-run=server'],
      'Error: invalid argument "server" for "--dry-run" flag: strconv.ParseBool: parsing "server": invalid syntax',
    ],
  ])('helm %s refuses %j as Helm does', async (version, argv, stderr) => {
    expect(await refused(`${version}+g0000000`, argv)).toBe(stderr);
  });

  it('uninstall takes --ignore-not-found from 3.13 (not in 3.12.3)', async () => {
    expect(await refused('v3.12.3+g0000000', ['uninstall', 'web', '--ignore-not-found'])).toBe('Error: unknown flag: --ignore-not-found');
    expect(await refused('v3.13.0+g0000000', ['uninstall', 'web', '--ignore-not-found'])).toMatch(/release: not found/);
  });
});

// On Helm 3 the client dry run maps against the cluster too (issue 30 N2): that path is `helm
// template`, proven on the real Helm 3.17.2 in plan-checks-real-helm.test.ts. The fake keeps Helm 4's.
describe('C2: a first install of a chart with crds/ and custom resources of those kinds', () => {
  it("falls back to a client-side dry run when Helm's server dry run cannot map them, says so, and installs", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opsgate-crds-'));
    const fake = await inProcessFakeHelm('v4');
    try {
      const sources = join(dir, 'sources');
      cpSync(SOURCES_DIR, sources, { recursive: true });
      cpSync(new URL('./charts/', import.meta.url).pathname, sources, { recursive: true });
      await buildRepository(join(dir, 'repo'), sources);
      const helm = new HelmService(
        new HelmCli({ helmPath: fake.helmPath, kubectlPath: fake.kubectlPath, run: fake.run }),
        await ChartRepository.open(join(dir, 'repo')),
      );
      const request = { operation: 'install' as const, release: 'mon', namespace: 'default', chart: 'operator' };
      const plan = await helm.plan(request);
      expect(plan.resources.create).toContain('CronTab.stable.example.com/nightly');
      expect(plan.risks.join(' ')).toContain('client-side render (install --dry-run=client)');
      const dryRuns = fake.calls.filter((argv) => argv.some((arg) => arg.startsWith('--dry-run')));
      expect(dryRuns.map((argv) => argv.find((arg) => arg.startsWith('--dry-run')))).toEqual(
        expect.arrayContaining(['--dry-run=server', '--dry-run=client']),
      );
      await expect(helm.execute(request, plan.planHash)).resolves.toMatchObject({ status: { info: { status: 'deployed' } } });
    } finally {
      await fake.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('cosmetic breaks from the review', () => {
  it('release names with dots are valid, as in Helm (validate_name.go)', () => {
    expect(releaseName.safeParse('web.v2').success).toBe(true);
    expect(releaseName.safeParse('web..v2').success).toBe(false);
    expect(releaseName.safeParse('Web').success).toBe(false);
  });

  it('a history chart string splits at the version, prereleases included', () => {
    expect(splitChartString('x-1.0.0-rc.1')).toEqual({ name: 'x', version: '1.0.0-rc.1' });
    expect(splitChartString('my-chart-2-1.0.0')).toEqual({ name: 'my-chart-2', version: '1.0.0' });
    expect(splitChartString('webapp-1.1.0')).toEqual({ name: 'webapp', version: '1.1.0' });
  });
});

describe('M6: helm and kubectl read the same cluster', () => {
  it('HELM_KUBECONTEXT, which steers helm by itself, is passed to kubectl as --context', async () => {
    const fake = await inProcessFakeHelm('v3');
    try {
      const cli = new HelmCli({
        helmPath: fake.helmPath,
        kubectlPath: fake.kubectlPath,
        run: fake.run,
        env: { HELM_KUBECONTEXT: 'prod-eu' },
      });
      expect((await cli.clusterInfo()).context).toBe('prod-eu');
      const kubectl = fake.calls.filter((argv) => argv[0] === 'kubectl');
      expect(kubectl.length).toBeGreaterThan(0);
      for (const argv of kubectl) expect(argv.slice(-2)).toEqual(['--context', 'prod-eu']);
      await cli.listReleases({ all: true });
      expect(fake.calls.at(-1)).not.toContain('--kube-context');
    } finally {
      await fake.close();
    }
  });
});
