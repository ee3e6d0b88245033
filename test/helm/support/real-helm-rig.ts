import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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

/** A `helm repo` repository served over HTTP on loopback from the test's process, added to the rig's HOME by name. */
export interface RigRepository {
  readonly name: string;
  readonly charts: readonly RigChart[];
}

/**
 * The real-binary Helm suites' common ground: the stub API server, a throwaway HOME with its
 * kubeconfig, opsgate's chart folder packaged by the real Helm, and a `HelmService` over the real
 * Helm 3 or 4 CLI backend.
 */
export interface RealHelmRig {
  readonly stub: KubeApiStub;
  /** The throwaway HOME (Helm's repositories and caches live there; tests may write files in it). */
  readonly home: string;
  readonly kubeconfig: string;
  /** opsgate's chart folder, holding the packaged `charts` (or the `chartRepository` given). */
  readonly repository: ChartRepository;
  /** Helm and kubectl see the rig's HOME, never the machine's. */
  env(): NodeJS.ProcessEnv;
  /** A HelmService over the real CLI backend; `repository` replaces the rig's chart folder. */
  service(major: HelmMajor, cli?: Partial<HelmCliOptions>, repository?: ChartRepository): HelmService;
  /** Runs the real helm itself (what a person did by hand) on the stub, with the rig's HOME; resolves with stdout. */
  helm(major: HelmMajor, args: readonly string[]): Promise<string>;
  close(): Promise<void>;
}

export async function startRealHelmRig(options: {
  readonly name: string;
  /** Packaged by the real Helm into opsgate's chart folder of the rig. */
  readonly charts?: readonly RigChart[];
  /** opsgate's chart repository instead of a packaged folder (the demo one, or `ChartRepository.none()`). */
  readonly chartRepository?: ChartRepository;
  readonly stub?: KubeApiStubOptions;
  readonly helmRepository?: RigRepository;
}): Promise<RealHelmRig> {
  const stub = await startKubeApiStub(options.stub);
  const home = mkdtempSync(join(tmpdir(), `opsgate-helm-${options.name}-`));
  const env = () => ({ ...process.env, HOME: home });
  const kubeconfig = join(home, 'kubeconfig');
  writeFileSync(kubeconfig, stub.kubeconfig(), { mode: 0o600 });
  const repository = options.chartRepository ?? (await packagedRepository(options.charts ?? [], home, env()));
  const served = options.helmRepository ? await serveHelmRepository(options.helmRepository, home, env()) : undefined;
  return {
    stub,
    kubeconfig,
    repository,
    env,
    home,
    service(major, cli = {}, chartRepository = repository) {
      const binaries = realHelmBinaries(major);
      return new HelmService(
        new HelmCli({ helmPath: binaries.helm, kubectlPath: binaries.kubectl, kubeconfig, env: env(), ...cli }),
        chartRepository,
      );
    },
    async helm(major, args) {
      return (await run(realHelmBinaries(major).helm, [...args, '--kubeconfig', kubeconfig], { env: env() })).stdout;
    },
    async close() {
      await stub.close();
      if (served) await new Promise((resolve) => served.server.close(resolve));
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** Packages the charts into a folder of HOME, serves it (async: Helm's requests are answered by this process) and runs `helm repo add`. */
async function serveHelmRepository(repository: RigRepository, home: string, env: NodeJS.ProcessEnv): Promise<{ server: Server }> {
  const folder = join(home, `repo-${repository.name}`);
  mkdirSync(folder);
  const server = createServer((request, response) => {
    try {
      response.end(readFileSync(join(folder, (request.url ?? '/').replace(/^\/+/, '').replace(/\.\./g, ''))));
    } catch {
      response.statusCode = 404;
      response.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const helm = realHelmBinaries('v4').helm;
  for (const chart of repository.charts)
    await run(helm, ['package', chart.path, '--destination', folder, ...(chart.packageArgs ?? [])], { env });
  await run(helm, ['repo', 'index', folder, '--url', url], { env });
  await run(helm, ['repo', 'add', repository.name, url], { env });
  return { server };
}

/** The charts packaged by the real Helm into a folder of HOME, indexed: opsgate's chart repository for the rig. */
async function packagedRepository(charts: readonly RigChart[], home: string, env: NodeJS.ProcessEnv): Promise<ChartRepository> {
  const folder = join(home, 'charts');
  mkdirSync(folder);
  const helm = realHelmBinaries('v4').helm;
  for (const chart of charts) await run(helm, ['package', chart.path, '--destination', folder, ...(chart.packageArgs ?? [])], { env });
  await run(helm, ['repo', 'index', folder], { env });
  return ChartRepository.open(folder, 'local');
}
