import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { HelmCli, type HelmCliOptions } from '../../../src/agents/helm/backends/cli/helm-cli.ts';
import { ChartRepository } from '../../../src/agents/helm/charts/chart-repository.ts';
import { HelmService } from '../../../src/agents/helm/service/helm-service.ts';
import { type KubeApiStub, type KubeApiStubOptions, startKubeApiStub } from '../../../src/testing/kube-api-stub/index.ts';
import { type HelmMajor, realHelmBinaries } from '../../../src/testing/real-helm-binaries.ts';

const run = promisify(execFile);

/** A chart folder to package into the rig's repository, with extra `helm package` arguments (e.g. signing). */
export interface RigChart {
  readonly path: string;
  readonly packageArgs?: readonly string[];
}

/**
 * The real-binary Helm suites' common ground: the stub API server, a throwaway HOME with its
 * kubeconfig, opsgate's chart folder packaged by the real Helm, and a `HelmService` over the real
 * Helm 3 or 4 CLI backend.
 */
export interface RealHelmRig {
  readonly stub: KubeApiStub;
  readonly kubeconfig: string;
  /** Helm and kubectl see the rig's HOME, never the machine's. */
  env(): NodeJS.ProcessEnv;
  service(major: HelmMajor, cli?: Partial<HelmCliOptions>): HelmService;
  close(): Promise<void>;
}

export async function startRealHelmRig(options: {
  readonly name: string;
  readonly charts: readonly RigChart[];
  readonly stub?: KubeApiStubOptions;
}): Promise<RealHelmRig> {
  const stub = await startKubeApiStub(options.stub);
  const home = mkdtempSync(join(tmpdir(), `opsgate-helm-${options.name}-`));
  const env = () => ({ ...process.env, HOME: home });
  const kubeconfig = join(home, 'kubeconfig');
  writeFileSync(kubeconfig, stub.kubeconfig(), { mode: 0o600 });
  const folder = join(home, 'charts');
  mkdirSync(folder);
  const helm = realHelmBinaries('v4').helm;
  for (const chart of options.charts)
    await run(helm, ['package', chart.path, '--destination', folder, ...(chart.packageArgs ?? [])], { env: env() });
  await run(helm, ['repo', 'index', folder], { env: env() });
  const repository = await ChartRepository.open(folder, 'local');
  return {
    stub,
    kubeconfig,
    env,
    service(major, cli = {}) {
      const binaries = realHelmBinaries(major);
      return new HelmService(
        new HelmCli({ helmPath: binaries.helm, kubectlPath: binaries.kubectl, kubeconfig, env: env(), ...cli }),
        repository,
      );
    },
    async close() {
      await stub.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
