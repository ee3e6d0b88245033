import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChartRepository, DEMO_REPOSITORY_DIR } from '../../src/agents/helm/charts/chart-repository.ts';
import type { PlanRequest } from '../../src/agents/helm/service/helm-service.ts';
import { userValuesOf, type ValueInputs } from '../../src/agents/helm/values/values-inputs.ts';
import type { HelmMajor } from '../../src/testing/real-helm-binaries.ts';
import { type RealHelmRig, startRealHelmRig } from './support/real-helm-rig.ts';

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
  let rig: RealHelmRig;
  beforeAll(async () => {
    rig = await startRealHelmRig({ name: 'values', chartRepository: ChartRepository.none() });
  }, REAL_BINARY_TIMEOUT_MS);
  afterAll(() => rig?.close());

  describe.each(['v3', 'v4'] as const)('real Helm %s', (major: HelmMajor) => {
    // The merge is opsgate's and Helm only receives its result: the install through the approval
    // runs on Helm 4.1 alone (Helm 3 would add processes, not evidence); the comparison with
    // Helm's own -f/--set-file runs on both, whose YAML readers are the ones that matter.
    const installIt = major === 'v4' ? it : undefined;
    const chart = new URL('./charts/secretive-1.0.0', import.meta.url).pathname;
    const service = () => rig.service(major);

    it(
      "Helm's own -f and --set-file give the user values opsgate computes",
      async () => {
        const dir = mkdtempSync(join(rig.home, `${major}-`));
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
        const stdout = await rig.helm(major, ['install', 'probe', chart, ...args, '--dry-run=client', '--output', 'json']);
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
        const withCharts = rig.service(major, {}, await ChartRepository.open(DEMO_REPOSITORY_DIR));
        const install: PlanRequest = { operation: 'install', release, namespace: 'default', chart: 'nginx', ...INPUTS };
        const approved = await withCharts.plan(install);
        expect(approved.valueInputs?.valuesFiles?.map((file) => file.name)).toEqual(['base.yaml', 'prod.yaml']);
        expect(JSON.stringify(approved.valueInputs)).not.toContain('worker_processes');
        const changed: PlanRequest = {
          ...install,
          valuesFiles: [INPUTS.valuesFiles![0]!, { name: 'prod.yaml', content: 'image:\n  tag: "6.6.6"\n' }],
        };
        await expect(withCharts.execute(changed, approved.planHash)).rejects.toMatchObject({ code: 'HELM_PLAN_STALE' });
        await expect(rig.helm(major, ['status', release])).rejects.toThrow(/not found/);
        await withCharts.execute(install, approved.planHash);
        const stdout = await rig.helm(major, ['get', 'values', release, '--output', 'json']);
        expect(JSON.parse(stdout)).toMatchObject({ image: { tag: '2.1' }, config: { 'nginx.conf': 'worker_processes 1;\nevents { }\n' } });
      },
      REAL_BINARY_TIMEOUT_MS,
    );
  });
});
