import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { HelmCli } from '../../src/agents/helm/backends/cli/helm-cli.ts';
import { ChartRepository } from '../../src/agents/helm/charts/chart-repository.ts';
import { HelmService } from '../../src/agents/helm/helm-service.ts';

const fakeBin = new URL('./fake-bin/', import.meta.url).pathname;
const fixtures = new URL('./fixtures/', import.meta.url).pathname;

describe('CLI backend argument building against a fake helm/kubectl on PATH', () => {
  let dir: string;
  let log: string;
  let cli: HelmCli;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'opsgate-fake-helm-'));
    log = join(dir, 'argv.log');
    cli = new HelmCli({
      env: { ...process.env, PATH: `${fakeBin}:${process.env.PATH}`, FAKE_HELM_LOG: log, FAKE_HELM_FIXTURES: fixtures },
    });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const invocations = (): string[][] =>
    readFileSync(log, 'utf8')
      .split('--\n')
      .filter(Boolean)
      .map((chunk) => chunk.split('\n').filter(Boolean));

  it('list uses --all on Helm 3 so pending-* releases show, and -o json; the Helm version is read once', async () => {
    const releases = await cli.listReleases({ all: true });
    expect(releases.map((r) => r.status)).toEqual(['deployed', 'pending-upgrade']);
    expect(invocations()[0]).toEqual(['version', '--short']);
    expect(invocations()[1]).toEqual(['list', '--all', '--all-namespaces', '--output', 'json']);
    await cli.listReleases({ all: true, namespace: 'store' });
    expect(invocations()[2]).toEqual(['list', '--all', '--namespace', 'store', '--output', 'json']);
  });

  it('on Helm 4, which lists every state by default and refuses --all ("unknown flag"), list goes without it', async () => {
    const helm4 = new HelmCli({
      env: {
        ...process.env,
        PATH: `${fakeBin}:${process.env.PATH}`,
        FAKE_HELM_LOG: log,
        FAKE_HELM_FIXTURES: fixtures,
        FAKE_HELM_VERSION: 'v4.2.4+g1a2b3c4',
      },
    });
    const releases = await helm4.listReleases({ all: true });
    expect(releases.map((r) => r.status)).toEqual(['deployed', 'pending-upgrade']);
    expect(invocations()[1]).toEqual(['list', '--all-namespaces', '--output', 'json']);
  });

  it('status and history use -o json; "release: not found" and unreachable map to distinct errors', async () => {
    const status = await cli.status('web', 'default');
    expect(status.version).toBe(3);
    // Real `helm status` prints no chart: its name and version come from `helm get metadata`.
    expect(status.chart.metadata).toMatchObject({ name: 'webapp', version: '1.1.0', appVersion: '1.27.0' });
    expect(invocations()[0]).toEqual(['status', 'web', '--namespace', 'default', '--output', 'json']);
    expect(invocations()[1]).toEqual(['get', 'metadata', 'web', '--namespace', 'default', '--output', 'json']);
    await cli.history('web', 'default');
    expect(invocations()[2]).toEqual(['history', 'web', '--namespace', 'default', '--max', '256', '--output', 'json']);
    await expect(cli.status('missing', 'default')).rejects.toMatchObject({ code: 'HELM_RELEASE_NOT_FOUND' });
    await expect(cli.status('down', 'default')).rejects.toMatchObject({ code: 'HELM_CLUSTER_UNREACHABLE' });
  });

  it('upgrade passes the complete values with --reset-values (reuse is decided by opsgate), install adds --create-namespace', async () => {
    const repository = await ChartRepository.open();
    const chart = await repository.load('webapp', '1.1.0');
    const archive = repository.archivePath(repository.entry('webapp', '1.1.0'));
    const request = {
      release: 'web',
      namespace: 'default',
      chart,
      chartArchive: archive,
      values: { replicaCount: 3, ingress: { enabled: 'yes' }, tls: 'off', region: 'no' },
      createNamespace: true,
    };
    await cli.upgrade(request);
    // Helm reads values as YAML 1.1, where an unquoted yes/off/no is a boolean: the file is JSON.
    const written = parse(readFileSync(`${log}.values`, 'utf8'), { version: '1.1' }) as Record<string, unknown>;
    expect(written).toEqual({ replicaCount: 3, ingress: { enabled: 'yes' }, tls: 'off', region: 'no' });
    const upgrade = invocations()[0]!;
    expect(upgrade.slice(0, 6)).toEqual(['upgrade', 'web', archive, '--namespace', 'default', '--reset-values']);
    expect(upgrade).not.toContain('--reuse-values');
    expect(upgrade.slice(-4)).toEqual(['--timeout', '300s', '--output', 'json']);
    await cli.install(request);
    const install = invocations()[1]!;
    expect(install.slice(0, 6)).toEqual(['install', 'web', archive, '--namespace', 'default', '--create-namespace']);
    expect(install[install.indexOf('--values') + 1]).toMatch(/opsgate-helm-.*values\.json$/);
  });

  it('rollback and uninstall print text, so the service confirms them by re-reading history/status', async () => {
    const service = new HelmService(cli, await ChartRepository.open());
    await cli.rollback('web', 'default', 1);
    expect(invocations()[0]).toEqual(['rollback', 'web', '1', '--namespace', 'default', '--wait', '--timeout', '300s']);
    await cli.uninstall('web', 'default');
    expect(invocations()[1]).toEqual(['uninstall', 'web', '--namespace', 'default', '--wait']);
    const info = await service.backend.clusterInfo();
    expect(info).toEqual({
      context: 'kind-test',
      kubernetesVersion: 'v1.29.4',
      nodes: [
        { name: 'node-a', ready: true },
        { name: 'node-b', ready: false },
      ],
    });
    const health = await cli.health('web', 'default');
    expect(health.pods.map((p) => p.status)).toEqual(['CrashLoopBackOff', 'ImagePullBackOff', 'Running']);
    expect(invocations().at(-2)).toEqual([
      'get',
      'pods',
      '--namespace',
      'default',
      '--selector',
      'app.kubernetes.io/instance=web',
      '-o',
      'json',
    ]);
  });

  it('the install/upgrade scenario check aborts on unreachable instead of installing', async () => {
    const service = new HelmService(cli, await ChartRepository.open());
    await expect(service.detectScenario('missing', 'default')).resolves.toMatchObject({ scenario: 'INSTALL' });
    await expect(service.detectScenario('down', 'default')).rejects.toMatchObject({ code: 'HELM_CLUSTER_UNREACHABLE' });
    expect(invocations().some((argv) => argv[0] === 'install')).toBe(false);
  });
});
