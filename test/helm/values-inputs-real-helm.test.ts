import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HelmCli } from '../../src/agents/helm/backends/cli/helm-cli.ts';
import { ChartRepository, DEMO_REPOSITORY_DIR } from '../../src/agents/helm/charts/chart-repository.ts';
import { HelmService, type PlanRequest } from '../../src/agents/helm/service/helm-service.ts';
import { userValuesOf, type ValueInputs } from '../../src/agents/helm/values/values-inputs.ts';
import { type KubeApiStub, startKubeApiStub } from '../../src/testing/kube-api-stub/index.ts';
import { type HelmMajor, realHelmBinaries } from '../../src/testing/real-helm-binaries.ts';

const run = promisify(execFile);
/** Generous for a loaded 2-core machine (each real helm/kubectl process costs 0.3–1 s of CPU); not a timed assertion. */
const REAL_BINARY_TIMEOUT_MS = 120_000;

// Values files and --set-file given by content (the approval binds their text). opsgate merges them
// into the one values file it hands Helm, so what it computes must be what Helm computes from the
// same files: each case is run through the real Helm's own `-f … --set-file …` and compared with
// the user values opsgate derives.
const INPUTS: ValueInputs = {
  valuesFiles: [
    {
      name: 'base.yaml',
      content: [
        'image:',
        '  repository: nginx',
        '  tag: "1.0"',
        '  pullPolicy: IfNotPresent',
        'enabled: yes',
        'flags: {on: off}',
        'mode: 0755',
        'day: 2026-11-27',
        'float: 1e3',
        'big: 12345678901234567890',
        'anchors:',
        '  base: &b {x: 1}',
        '  more:',
        '    <<: *b',
        '    z: 2',
        'list: [a, b]',
        '',
      ].join('\n'),
    },
    { name: 'prod.yaml', content: 'image:\n  tag: "2.0"\n  pullPolicy: null\nlist: [c]\nempty:\n' },
  ],
  values: { replicaCount: 3, image: { tag: '2.1' } },
  setFiles: [
    { key: 'config.nginx\\.conf', name: 'nginx.conf', content: 'worker_processes 1;\nevents { }\n' },
    { key: 'script', name: 'run.sh', content: 'yes\n' },
  ],
};

describe('values files and --set-file are merged as the real Helm merges them', () => {
  let stub: KubeApiStub;
  let home: string;
  let kubeconfig: string;
  beforeAll(async () => {
    stub = await startKubeApiStub();
    home = mkdtempSync(join(tmpdir(), 'opsgate-helm-values-'));
    kubeconfig = join(home, 'kubeconfig');
    writeFileSync(kubeconfig, stub.kubeconfig(), { mode: 0o600 });
  }, REAL_BINARY_TIMEOUT_MS);
  afterAll(async () => {
    await stub?.close();
    rmSync(home, { recursive: true, force: true });
  });

  describe.each(['v3', 'v4'] as const)('real Helm %s', (major: HelmMajor) => {
    // The merge is opsgate's and Helm only receives its result: the install through the approval
    // runs on Helm 4.1 alone (Helm 3 would add processes, not evidence); the comparison with
    // Helm's own -f/--set-file runs on both, whose YAML readers are the ones that matter.
    const installIt = major === 'v4' ? it : undefined;
    const chart = new URL('./charts/secretive-1.0.0', import.meta.url).pathname;
    const service = () => {
      const binaries = realHelmBinaries(major);
      return new HelmService(
        new HelmCli({ helmPath: binaries.helm, kubectlPath: binaries.kubectl, kubeconfig, env: { ...process.env, HOME: home } }),
        ChartRepository.none(),
      );
    };

    it(
      "Helm's own -f and --set-file give the user values opsgate computes",
      async () => {
        const dir = mkdtempSync(join(home, `${major}-`));
        const file = (name: string, content: string) => {
          const path = join(dir, name);
          writeFileSync(path, content);
          return path;
        };
        const args = [
          ...INPUTS.valuesFiles!.flatMap((input) => ['-f', file(input.name, input.content)]),
          // opsgate's inline values come after the files, as Helm's --set-json does.
          ...['-f', file('inline.json', JSON.stringify(INPUTS.values))],
          ...INPUTS.setFiles!.flatMap((input) => ['--set-file', `${input.key}=${file(input.name, input.content)}`]),
        ];
        const { stdout } = await run(
          realHelmBinaries(major).helm,
          ['install', 'probe', chart, ...args, '--dry-run=client', '--output', 'json', '--kubeconfig', kubeconfig],
          { env: { ...process.env, HOME: home } },
        );
        const helmValues = (JSON.parse(stdout) as { config: unknown }).config;
        expect(userValuesOf(INPUTS)).toEqual(helmValues);
        // The YAML 1.1 readings that a YAML 1.2 reader would get wrong, as Helm has them.
        expect(helmValues).toMatchObject({ enabled: true, flags: { true: false }, mode: 493, day: '2026-11-27', script: 'yes\n' });
      },
      REAL_BINARY_TIMEOUT_MS,
    );

    installIt?.(
      'an install with values files runs with exactly those values, and other file contents make the approved plan stale',
      async () => {
        const release = `files-${major}`;
        await expect(service().plan({ operation: 'install', release, namespace: 'default', chart: 'nginx' })).rejects.toMatchObject({
          code: 'HELM_NO_CHART_REPOSITORY',
        });
        const binaries = realHelmBinaries(major);
        const withCharts = new HelmService(
          new HelmCli({ helmPath: binaries.helm, kubectlPath: binaries.kubectl, kubeconfig, env: { ...process.env, HOME: home } }),
          await ChartRepository.open(DEMO_REPOSITORY_DIR),
        );
        const install: PlanRequest = { operation: 'install', release, namespace: 'default', chart: 'nginx', ...INPUTS };
        const approved = await withCharts.plan(install);
        expect(approved.valueInputs?.valuesFiles?.map((file) => file.name)).toEqual(['base.yaml', 'prod.yaml']);
        expect(JSON.stringify(approved.valueInputs)).not.toContain('worker_processes');
        const changed: PlanRequest = {
          ...install,
          valuesFiles: [INPUTS.valuesFiles![0]!, { name: 'prod.yaml', content: 'image:\n  tag: "6.6.6"\n' }],
        };
        await expect(withCharts.execute(changed, approved.planHash)).rejects.toMatchObject({ code: 'HELM_PLAN_STALE' });
        await expect(
          run(binaries.helm, ['status', release, '--kubeconfig', kubeconfig], { env: { ...process.env, HOME: home } }),
        ).rejects.toThrow(/not found/);
        await withCharts.execute(install, approved.planHash);
        const { stdout } = await run(binaries.helm, ['get', 'values', release, '--output', 'json', '--kubeconfig', kubeconfig], {
          env: { ...process.env, HOME: home },
        });
        expect(JSON.parse(stdout)).toMatchObject({ image: { tag: '2.1' }, config: { 'nginx.conf': 'worker_processes 1;\nevents { }\n' } });
      },
      REAL_BINARY_TIMEOUT_MS,
    );
  });
});
