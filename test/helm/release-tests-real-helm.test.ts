import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HelmCli } from '../../src/agents/helm/backends/cli/helm-cli.ts';
import { ChartRepository } from '../../src/agents/helm/charts/chart-repository.ts';
import { HelmService, type PlanRequest } from '../../src/agents/helm/service/helm-service.ts';
import { type KubeApiStub, startKubeApiStub } from '../../src/testing/kube-api-stub/index.ts';
import { type HelmMajor, realHelmBinaries } from '../../src/testing/real-helm-binaries.ts';

const run = promisify(execFile);
const TESTED_CHART = new URL('./charts-extra/tested-1.0.0', import.meta.url).pathname;

// `helm test` after an approved install or upgrade (review 2026-11-26 §4): the chart's test hook is
// a bare Pod; the stub runs it to completion, or fails it for the releases named in `failingPods`.
describe('helm test runs after an install, and its result is in the answer', () => {
  let stub: KubeApiStub;
  let home: string;
  let kubeconfig: string;
  let repository: ChartRepository;
  beforeAll(async () => {
    stub = await startKubeApiStub({ failingPods: ['bad-v3-test-connection', 'bad-v4-test-connection'] });
    home = mkdtempSync(join(tmpdir(), 'opsgate-helm-tests-'));
    kubeconfig = join(home, 'kubeconfig');
    writeFileSync(kubeconfig, stub.kubeconfig(), { mode: 0o600 });
    const charts = join(home, 'charts');
    mkdirSync(charts);
    const helm = realHelmBinaries('v4').helm;
    await run(helm, ['package', TESTED_CHART, '--destination', charts], { env: { ...process.env, HOME: home } });
    await run(helm, ['repo', 'index', charts], { env: { ...process.env, HOME: home } });
    repository = await ChartRepository.open(charts, 'local');
  }, 120_000);
  afterAll(async () => {
    await stub?.close();
    rmSync(home, { recursive: true, force: true });
  });

  describe.each(['v3', 'v4'] as const)('real Helm %s', (major: HelmMajor) => {
    const service = () => {
      const binaries = realHelmBinaries(major);
      return new HelmService(
        new HelmCli({ helmPath: binaries.helm, kubectlPath: binaries.kubectl, kubeconfig, env: { ...process.env, HOME: home } }),
        repository,
      );
    };
    const install = (release: string): PlanRequest => ({ operation: 'install', release, namespace: 'default', chart: 'tested' });

    it('a passing test: the plan says it will run, the answer says it passed', async () => {
      const helm = service();
      const plan = await helm.plan(install(`ok-${major}`));
      expect(plan.risks.join('\n')).toContain(`\`helm test\` runs the chart's test hook Pod/ok-${major}-test-connection`);
      const done = await helm.execute(install(`ok-${major}`), plan.planHash);
      expect(done.tests).toEqual({ passed: true, suites: [{ name: `ok-${major}-test-connection`, phase: 'Succeeded' }] });
      expect(done.confirmed).toContain(`helm test passed (ok-${major}-test-connection)`);
    });

    it('a failing test: the revision stays deployed and the answer names the failed test pod', async () => {
      const helm = service();
      const plan = await helm.plan(install(`bad-${major}`));
      const done = await helm.execute(install(`bad-${major}`), plan.planHash);
      expect(done.status).toMatchObject({ info: { status: 'deployed' } });
      expect(done.tests).toMatchObject({ passed: false, suites: [{ name: `bad-${major}-test-connection`, phase: 'Failed' }] });
      expect(done.confirmed).toContain(`helm test FAILED (bad-${major}-test-connection)`);
    });
  });
});
