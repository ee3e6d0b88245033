import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { withCancellation } from '../../src/agents/helm/backends/cli/cancellation.ts';
import { HelmCli } from '../../src/agents/helm/backends/cli/helm-cli.ts';
import { buildRepository, SOURCES_DIR } from '../../src/agents/helm/charts/build-repo.ts';
import { ChartRepository } from '../../src/agents/helm/charts/chart-repository.ts';
import { HelmMcpClient } from '../../src/agents/helm/mcp/mcp-client.ts';
import { createHelmMcpServer } from '../../src/agents/helm/mcp/mcp-server.ts';
import { HelmService } from '../../src/agents/helm/service/helm-service.ts';
import { type FakeHelm, type InProcessFakeHelm, inProcessFakeHelm, installFakeHelm } from './fake-helm/install-fakes.ts';

// Why the fake `helm`: Helm-time (90 s rollouts, 250 s hooks) is compressed by fake timers; the real binaries
// would take it in real time (the 2026-11-26 review ran a 75 s rollout on Helm 4.1 by hand).

// Issue 20, break 1 (review 2026-11-24-helm C1 and baseline point 5): a Helm call stopped after the
// MCP SDK's default 60 s while `helm` ran on, and `--timeout` + 60 s killed commands whose hooks
// each took most of Helm's per-hook `--timeout`. The fake's cluster takes Helm-time (FakeTiming);
// in-process, fake timers run the SDK's, the backend's and the fake's clocks together, so every
// limit below is the production arithmetic, only faster. The real-process test proves a cancel
// kills `helm`.

const TEST_CHARTS = new URL('./charts/', import.meta.url).pathname;
const install = { release: 'web', namespace: 'default', chart: 'webapp', version: '1.1.0', values: { replicaCount: 2 } };

async function testRepository(dir: string): Promise<ChartRepository> {
  const sources = join(dir, 'sources');
  cpSync(SOURCES_DIR, sources, { recursive: true });
  cpSync(TEST_CHARTS, sources, { recursive: true });
  await buildRepository(join(dir, 'repo'), sources);
  return ChartRepository.open(join(dir, 'repo'));
}

/** Lets virtual time pass until `work` settles, a step at a time, with real pauses (timers/promises is not faked) between. */
async function runVirtually<T>(work: Promise<T>, stepMs = 5000, limitMs = 3_600_000): Promise<{ result: T; elapsedMs: number }> {
  let settled = false;
  const watched = work.finally(() => {
    settled = true;
  });
  watched.catch(() => {});
  let elapsedMs = 0;
  while (!settled && elapsedMs < limitMs) {
    // Real file and database work in between must not watch virtual time run away: a real pause first.
    await pause(3);
    await vi.advanceTimersByTimeAsync(stepMs);
    elapsedMs += stepMs;
  }
  return { result: await watched, elapsedMs };
}

describe('long rollouts and hooks, with virtual time (in-process fake helm)', () => {
  let fake: InProcessFakeHelm;
  let dir: string;
  afterEach(async () => {
    vi.useRealTimers();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function setUp(timing: { rolloutSeconds?: number; hookSeconds?: number }) {
    dir = mkdtempSync(join(tmpdir(), 'opsgate-long-rollouts-'));
    fake = await inProcessFakeHelm('v3', { timing });
    const cli = new HelmCli({ helmPath: fake.helmPath, kubectlPath: fake.kubectlPath, run: fake.run });
    return { cli, service: new HelmService(cli, await testRepository(dir)) };
  }

  it('a 90 s rollout completes through the MCP hop: the server reports progress, so the 60 s silence limit never ends it', async () => {
    const { service } = await setUp({ rolloutSeconds: 90 });
    const client = await HelmMcpClient.inProcess(createHelmMcpServer(service));
    const { plan } = (await client.call('helm_get_installation_plan', { ...install, operation: 'install' })) as {
      plan: { planHash: string };
    };
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    const { result, elapsedMs } = await runVirtually(client.call('helm_install_chart', { ...install, planHash: plan.planHash }));
    expect(result).toMatchObject({ status: { info: { status: 'deployed' }, version: 1 } });
    expect(elapsedMs).toBeGreaterThanOrEqual(90_000);
    expect(fake.calls.find((argv) => argv[1] === 'install' && !argv.includes('--dry-run=server'))).toEqual(
      expect.arrayContaining(['--wait', '--timeout', '300s']),
    );
    await client.close();
  });

  it('an upgrade whose hook and rollout each take most of --timeout completes: the process limit counts --timeout per hook', async () => {
    const { cli, service } = await setUp({});
    const hooked = { release: 'app', namespace: 'default', chart: 'hooked' };
    await service.execute({ operation: 'install', ...hooked }, (await service.plan({ operation: 'install', ...hooked })).planHash);
    // The hooked chart's migration Job gets 600 s by default (issue 30 N8); this change asks for 300 s.
    const upgrade = { operation: 'upgrade' as const, ...hooked, values: { replicaCount: 2 }, timeoutSeconds: 300 };
    const plan = await service.plan(upgrade);
    expect(plan.hooks?.map(({ key, events }) => ({ key, events }))).toEqual(
      expect.arrayContaining([{ key: 'Job/app-migrate', events: ['pre-upgrade', 'pre-install'] }]),
    );
    // 250 s hook + 250 s rollout: past the old limit of --timeout + 60 s = 360 s, within 300 × 2 + 60 = 660 s.
    expect(cli.processLimitMs(300, 1)).toBe(660_000);
    expect(cli.processLimitMs(300, 0)).toBe(360_000);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    const timed = new HelmService(
      new HelmCli({
        helmPath: fake.helmPath,
        kubectlPath: fake.kubectlPath,
        run: fake.withTiming({ hookSeconds: 250, rolloutSeconds: 250 }),
      }),
      service.repository,
    );
    const { result, elapsedMs } = await runVirtually(timed.execute(upgrade, plan.planHash));
    expect(result.status).toMatchObject({ version: 2, info: { status: 'deployed' } });
    expect(elapsedMs).toBeGreaterThanOrEqual(500_000);
  });

  it('a hook slower than --timeout fails the way Helm reports it, before the process limit', async () => {
    const { service } = await setUp({});
    const hooked = { release: 'app', namespace: 'default', chart: 'hooked' };
    await service.execute({ operation: 'install', ...hooked }, (await service.plan({ operation: 'install', ...hooked })).planHash);
    // The hooked chart's migration Job gets 600 s by default (issue 30 N8); this change asks for 300 s.
    const upgrade = { operation: 'upgrade' as const, ...hooked, values: { replicaCount: 2 }, timeoutSeconds: 300 };
    const plan = await service.plan(upgrade);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    const timed = new HelmService(
      new HelmCli({ helmPath: fake.helmPath, kubectlPath: fake.kubectlPath, run: fake.withTiming({ hookSeconds: 400 }) }),
      service.repository,
    );
    const outcome = runVirtually(timed.execute(upgrade, plan.planHash));
    await expect(outcome).rejects.toMatchObject({ code: 'HELM_TIMEOUT' });
    await expect(outcome).rejects.toThrow(/timed out waiting for the condition \(Job\/app-migrate\)/);
  });
});

describe('cancellation reaches the helm process', () => {
  let fake: FakeHelm | InProcessFakeHelm | undefined;
  afterEach(async () => {
    if (fake && 'close' in fake) await fake.close();
    else if (fake) rmSync(fake.dir, { recursive: true, force: true });
  });

  it('cancelling the MCP call aborts the signal the running helm command was started with', async () => {
    const inProcess = await inProcessFakeHelm('v3', { timing: { rolloutSeconds: 3600 } });
    fake = inProcess;
    const signals: Array<AbortSignal | undefined> = [];
    const cli = new HelmCli({
      helmPath: inProcess.helmPath,
      kubectlPath: inProcess.kubectlPath,
      run: (file, args, options) => {
        signals.push(options.signal);
        return inProcess.run(file, args, options);
      },
    });
    const client = await HelmMcpClient.inProcess(createHelmMcpServer(new HelmService(cli, await ChartRepository.open())));
    const { plan } = (await client.call('helm_get_installation_plan', { ...install, operation: 'install' })) as {
      plan: { planHash: string };
    };
    const controller = new AbortController();
    const call = client.call('helm_install_chart', { ...install, planHash: plan.planHash }, controller.signal);
    call.catch(() => {});
    await vi.waitFor(() => expect(inProcess.calls.some((argv) => argv[1] === 'install' && !argv.includes('--dry-run=server'))).toBe(true));
    const running = signals.at(-1);
    expect(running?.aborted).toBe(false);
    controller.abort();
    await expect(call).rejects.toThrow();
    await vi.waitFor(() => expect(running?.aborted).toBe(true));
    await client.close();
  });

  it('an aborted signal kills the real `helm` process at once (a 60 s rollout, ended within seconds)', async () => {
    const processes = installFakeHelm('v3', { FAKE_HELM_ROLLOUT_SECONDS: '60' });
    fake = processes;
    const cli = new HelmCli({ helmPath: processes.helmPath, kubectlPath: processes.kubectlPath });
    const repository = await ChartRepository.open();
    const chart = await repository.load('webapp', '1.1.0');
    const request = {
      release: 'web',
      namespace: 'default',
      chart,
      chartArchive: repository.archivePath(repository.entry('webapp', '1.1.0')),
      values: {},
      createNamespace: false,
    };
    const controller = new AbortController();
    const started = withCancellation(controller.signal, () => cli.install(request));
    started.catch(() => {});
    const pid = await vi.waitFor(
      () => {
        const line = readFileSync(processes.logPath, 'utf8')
          .split('\n')
          .find((entry) => entry.startsWith('helm install web'));
        if (!line) throw new Error('helm install has not started');
        return Number(line.split('#').pop());
      },
      { timeout: 60_000, interval: 50 },
    );
    expect(alive(pid)).toBe(true);
    controller.abort();
    await expect(started).rejects.toThrow();
    await vi.waitFor(() => expect(alive(pid)).toBe(false), { timeout: 10_000, interval: 50 });
  }, 120_000);
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
