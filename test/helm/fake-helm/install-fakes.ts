import { appendFileSync, chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { CommandFailed, type CommandRunner } from '../../../src/agents/helm/backends/cli/run-command.ts';
import { helmSimulatorMigrations } from '../../../src/agents/helm/backends/simulator/migration.ts';
import { SimulatedCluster } from '../../../src/agents/helm/backends/simulator/simulated-cluster.ts';
import { openStore, type Store } from '../../../src/core/store/index.ts';
import type { FakeChartSources } from './fake-chart-sources.ts';
import { FakeFailure, type FakeTiming, runFakeHelm } from './fake-helm-commands.ts';
import { type FakeKubectlIdentity, runFakeKubectl } from './fake-kubectl-commands.ts';

export type FakeHelmVersion = 'v3' | 'v4';

/** The `helm version --short` each fake answers with (the newest releases `helm/helm` was read at). */
export const FAKE_HELM_VERSIONS: Record<FakeHelmVersion, string> = { v3: 'v3.21.4+g2e3a0c9', v4: 'v4.2.4+g9b5f4a1' };

export interface FakeHelm {
  readonly dir: string;
  readonly helmPath: string;
  readonly kubectlPath: string;
  /** The simulated cluster's SQLite file (open it with `SimulatedCluster` to assert or inject faults). */
  readonly statePath: string;
  /** One line per command: `helm ARGS #PID` or `kubectl ARGS #PID`. */
  readonly logPath: string;
}

/**
 * Writes `helm` and `kubectl` executables into a fresh folder, bound to one cluster state and one
 * Helm version (or any `helm version --short` text), so that a test can hand their paths to the
 * CLI backend like real binaries. Each call is a Node process (~0.2–0.4 s): use `inProcessFakeHelm`
 * unless the process boundary is what the test is about.
 */
export function installFakeHelm(version: FakeHelmVersion | string, env: Record<string, string> = {}): FakeHelm {
  const dir = mkdtempSync(join(tmpdir(), 'opsgate-fake-helm-'));
  const statePath = join(dir, 'cluster.db');
  const logPath = join(dir, 'argv.log');
  const script = new URL('./fake-helm.ts', import.meta.url).pathname;
  const variables = {
    FAKE_HELM_STATE: statePath,
    FAKE_HELM_VERSION: FAKE_HELM_VERSIONS[version as FakeHelmVersion] ?? version,
    FAKE_HELM_LOG: logPath,
    ...env,
  };
  const wrapper = (tool: string) =>
    [
      '#!/bin/sh',
      `export ${Object.entries(variables)
        .map(([name, value]) => `${name}='${value}'`)
        .join(' ')}`,
      `exec '${process.execPath}' --no-warnings '${script}' ${tool} "$@"`,
      '',
    ].join('\n');
  const helmPath = join(dir, 'helm');
  const kubectlPath = join(dir, 'kubectl');
  writeFileSync(helmPath, wrapper('helm'));
  writeFileSync(kubectlPath, wrapper('kubectl'));
  chmodSync(helmPath, 0o755);
  chmodSync(kubectlPath, 0o755);
  return { dir, helmPath, kubectlPath, statePath, logPath };
}

/** Waits on the global `setTimeout` (so that fake timers drive it), ending early when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

export interface InProcessFakeHelm extends FakeHelm {
  /** The CLI backend's command runner: answers `helmPath` and `kubectlPath` in this process. */
  readonly run: CommandRunner;
  /** The fake's cluster (the same store the runner answers from: assert on it, inject faults). */
  readonly cluster: SimulatedCluster;
  readonly store: Store;
  /** A runner over the same cluster whose hooks and rollouts take `timing`. */
  withTiming(timing: FakeTiming): CommandRunner;
  /** Each command's argv, `helm …` or `kubectl …`. */
  readonly calls: string[][];
  close(): Promise<void>;
}

/**
 * The same fake `helm` and `kubectl`, answered in this process behind the CLI backend's command
 * runner: Helm's argv, stdout, stderr and exit status, without a Node process per call. The
 * runner keeps the process contract the backend relies on: `timeoutMs` and the abort signal end
 * a command the way a kill does (`CommandFailed`, killed), and sleeps use `setTimeout`, so fake
 * timers drive long rollouts.
 */
export async function inProcessFakeHelm(
  version: FakeHelmVersion | string,
  options: { timing?: FakeTiming; kubectl?: FakeKubectlIdentity; charts?: FakeChartSources } = {},
): Promise<InProcessFakeHelm> {
  const dir = mkdtempSync(join(tmpdir(), 'opsgate-fake-helm-'));
  const statePath = join(dir, 'cluster.db');
  const logPath = join(dir, 'argv.log');
  const store = await openStore({ sqlitePath: statePath, databaseUrl: '', migrations: helmSimulatorMigrations });
  const cluster = new SimulatedCluster(store);
  const calls: string[][] = [];
  const helmVersion = FAKE_HELM_VERSIONS[version as FakeHelmVersion] ?? version;
  const runner =
    (timing: FakeTiming | undefined): CommandRunner =>
    async (file, args, { timeoutMs, signal }) => {
      const tool = basename(file);
      calls.push([tool, ...args]);
      appendFileSync(logPath, `${tool} ${args.join(' ')}\n`);
      const stop = new AbortController();
      const ended = AbortSignal.any([stop.signal, ...(signal ? [signal] : [])]);
      const work =
        tool === 'kubectl'
          ? runFakeKubectl(args, cluster, options.kubectl)
          : runFakeHelm(args, {
              version: helmVersion,
              cluster,
              ...(timing ? { timing } : {}),
              ...(options.charts ? { charts: options.charts } : {}),
              sleep: (seconds) => sleep(seconds * 1000, ended),
            });
      const killed = new Promise<never>((_resolve, reject) => {
        const kill = (why: string) => reject(new CommandFailed(`Command failed: ${file} ${args.join(' ')}\n${why}`, '', true));
        const timer = setTimeout(() => {
          stop.abort();
          kill('killed: timeout');
        }, timeoutMs);
        const onAbort = () => {
          clearTimeout(timer);
          kill('killed: aborted');
        };
        if (signal?.aborted) onAbort();
        signal?.addEventListener('abort', onAbort, { once: true });
        void work
          .finally(() => {
            clearTimeout(timer);
            signal?.removeEventListener('abort', onAbort);
          })
          .catch(() => {});
      });
      try {
        return await Promise.race([work, killed]);
      } catch (error) {
        if (error instanceof FakeFailure)
          throw new CommandFailed(`Command failed: ${file} ${args.join(' ')}\n${error.stderr}`, error.stderr, false);
        throw error;
      } finally {
        stop.abort();
      }
    };
  return {
    dir,
    helmPath: join(dir, 'helm'),
    kubectlPath: join(dir, 'kubectl'),
    statePath,
    logPath,
    run: runner(options.timing),
    withTiming: runner,
    cluster,
    store,
    calls,
    async close() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
