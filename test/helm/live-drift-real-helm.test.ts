import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HelmCli } from '../../src/agents/helm/backends/cli/helm-cli.ts';
import { ChartRepository, DEMO_REPOSITORY_DIR } from '../../src/agents/helm/charts/chart-repository.ts';
import { HelmService, type PlanRequest } from '../../src/agents/helm/service/helm-service.ts';
import { type KubeApiStub, startKubeApiStub } from '../../src/testing/kube-api-stub/index.ts';
import { type HelmMajor, realHelmBinaries } from '../../src/testing/real-helm-binaries.ts';

const run = promisify(execFile);

// The plan diffed the stored release manifest only, so `kubectl edit` and HPA drift were invisible
// to the approver (review 2026-11-26 §4 "a diff against the live state"). A release installed by
// the real Helm, then changed behind Helm's back with the real kubectl, against the stub API server.
describe('an upgrade plan shows what differs between the release and the live objects', () => {
  let stub: KubeApiStub;
  let home: string;
  let kubeconfig: string;
  let repository: ChartRepository;
  beforeAll(async () => {
    stub = await startKubeApiStub();
    home = mkdtempSync(join(tmpdir(), 'opsgate-helm-drift-'));
    kubeconfig = join(home, 'kubeconfig');
    writeFileSync(kubeconfig, stub.kubeconfig(), { mode: 0o600 });
    repository = await ChartRepository.open(DEMO_REPOSITORY_DIR);
  });
  afterAll(async () => {
    await stub?.close();
    rmSync(home, { recursive: true, force: true });
  });

  describe.each(['v3', 'v4'] as const)('real Helm %s', (major: HelmMajor) => {
    const release = `drift-${major}`;
    const env = () => ({ ...process.env, HOME: home });
    const tool = (name: 'helm' | 'kubectl', args: string[]) =>
      run(realHelmBinaries(major)[name], [...args, '--kubeconfig', kubeconfig], { env: env() });
    const service = () => {
      const binaries = realHelmBinaries(major);
      return new HelmService(new HelmCli({ helmPath: binaries.helm, kubectlPath: binaries.kubectl, kubeconfig, env: env() }), repository);
    };
    const upgrade: PlanRequest = { operation: 'upgrade', release, namespace: 'default', chart: 'webapp', version: '1.1.0' };

    beforeAll(async () => {
      await tool('helm', ['install', release, repository.archivePath(repository.entry('webapp', '1.0.0')), '--namespace', 'default']);
    }, 120_000);

    it('no drift right after the install; a scaled Deployment, a changed image and a deleted Service are listed, and the plan hash does not move with them', async () => {
      const before = await service().plan(upgrade);
      expect(before.liveDrift).toMatchObject({ drifted: [], missing: [] });
      expect(before.liveDrift?.checked).toBe(2);

      // The stub serves no /scale subresource, so the replicas are patched as `kubectl edit` would.
      await tool('kubectl', ['patch', `deployment/${release}-webapp`, '-p', '{"spec":{"replicas":5}}', '--namespace', 'default']);
      await tool('kubectl', ['set', 'image', `deployment/${release}-webapp`, 'webapp=nginx:hotfix', '--namespace', 'default']);
      await tool('kubectl', ['delete', 'service', `${release}-webapp`, '--namespace', 'default']);

      const after = await service().plan(upgrade);
      expect(after.liveDrift?.missing).toEqual([`Service/${release}-webapp`]);
      expect(after.liveDrift?.drifted).toEqual([
        {
          object: `Deployment/${release}-webapp`,
          changes: [
            { path: 'spec.replicas', release: 2, live: 5 },
            { path: 'spec.template.spec.containers[0].image', release: 'nginx:1.25.3', live: 'nginx:hotfix' },
          ],
        },
      ]);
      expect(after.planHash).toBe(before.planHash);
    });
  });
});
