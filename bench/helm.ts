/**
 * Helm agent benchmark: query-path latency (`list releases`, `status`) through the MCP hop vs
 * calling the backend directly, and the non-human time of a full install workflow through the
 * runtime (discovery → gate 1 → planning → gate 2 → execution → verification, decisions given
 * at once). Backend: the simulated cluster on SQLite. And, with the CLI backend against the fake
 * helm/kubectl answered in-process (test/helm/fake-helm), how many helm/kubectl processes and
 * server dry runs one approved install and one approved upgrade cost (issue 20: at most 4 dry runs).
 * `BENCH_QUICK=1` for a short run.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { helmSimulatorMigrations } from '../src/agents/helm/backends/simulator/migration.ts';
import { SimulatedCluster } from '../src/agents/helm/backends/simulator/simulated-cluster.ts';
import { ChartRepository, DEMO_REPOSITORY_DIR } from '../src/agents/helm/charts/chart-repository.ts';
import { createHelmAgent, helmAgent } from '../src/agents/helm/index.ts';
import { HelmMcpClient } from '../src/agents/helm/mcp/mcp-client.ts';
import { createHelmMcpServer } from '../src/agents/helm/mcp/mcp-server.ts';
import { HelmService } from '../src/agents/helm/service/helm-service.ts';
import { createRuntime } from '../src/core/runtime/index.ts';
import { openStore } from '../src/core/store/index.ts';
import { inProcessFakeHelm } from '../test/helm/fake-helm/install-fakes.ts';

const quick = process.env.BENCH_QUICK === '1';
const queryIterations = quick ? 200 : 2000;
const workflowIterations = quick ? 15 : 100;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function measure(iterations: number, run: (i: number) => Promise<unknown>): Promise<{ p50: number; p99: number; mean: number }> {
  for (let i = 0; i < Math.min(20, iterations); i++) await run(i);
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const start = performance.now();
    await run(i);
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 50), p99: percentile(samples, 99), mean: samples.reduce((a, b) => a + b, 0) / samples.length };
}

const round = (n: number) => Math.round(n * 1000) / 1000;
const dir = mkdtempSync(join(tmpdir(), 'opsgate-bench-helm-'));
const results: Array<Record<string, unknown>> = [];
try {
  const store = await openStore({ sqlitePath: join(dir, 'bench.db'), databaseUrl: '', migrations: helmSimulatorMigrations });
  const service = new HelmService(new SimulatedCluster(store), await ChartRepository.open());
  const client = await HelmMcpClient.inProcess(createHelmMcpServer(service));
  for (const name of ['web', 'api', 'shop']) {
    const request = { operation: 'install' as const, release: name, namespace: 'default', chart: name === 'shop' ? 'shop' : 'webapp' };
    await service.execute(request, (await service.plan(request)).planHash);
  }
  const cases: Array<[string, () => Promise<unknown>, () => Promise<unknown>]> = [
    ['list releases', () => service.backend.listReleases({ all: true }), () => client.call('helm_list_releases', {})],
    [
      'status',
      () => service.releaseStatus('web', 'default'),
      () => client.call('helm_get_release_status', { release: 'web', namespace: 'default' }),
    ],
  ];
  for (const [operation, direct, viaMcp] of cases) {
    const d = await measure(queryIterations, direct);
    const m = await measure(queryIterations, viaMcp);
    results.push({ system: 'direct-backend', operation, iterations: queryIterations, p50_ms: round(d.p50), p99_ms: round(d.p99) });
    results.push({
      system: 'via-mcp-hop',
      operation,
      iterations: queryIterations,
      p50_ms: round(m.p50),
      p99_ms: round(m.p99),
      mcp_hop_share_p50: round((m.p50 - d.p50) / m.p50),
    });
  }
  await client.close();
  await store.close();

  const runtimeStore = await openStore({ sqlitePath: join(dir, 'runtime.db'), databaseUrl: '' });
  const runtime = await createRuntime({ store: runtimeStore, agents: [helmAgent], agentOptions: { helm: { backend: 'simulator' } } });
  const alice = { userId: 1, username: 'alice', roles: ['user'] };
  // Helm changes are high risk: someone other than the requester approves.
  const approver = { userId: 2, username: 'carol', roles: ['approver'] };
  const workflow = await measure(workflowIterations, async (i) => {
    const session = await runtime.startSession({ agent: 'helm', identity: alice });
    const gate1 = await runtime.send(
      session.id,
      `install webapp as web-${i}-${Math.random().toString(36).slice(2, 8)} set replicaCount=2`,
      alice,
    );
    const gate2 = await runtime.decide(session.id, { type: 'answer', callId: gate1.interrupt!.callId, answer: 'yes' }, alice);
    const done = await runtime.decide(session.id, { type: 'approve', callId: gate2.interrupt!.callId }, approver);
    if (!done.messages.at(-1)?.text.includes('COMPLETED')) throw new Error(`workflow did not complete: ${done.messages.at(-1)?.text}`);
  });
  results.push({
    system: 'opsgate-install-workflow',
    operation: 'install (non-human time, 3 calls)',
    iterations: workflowIterations,
    p50_ms: round(workflow.p50),
    p99_ms: round(workflow.p99),
  });
  await runtime.close();
  await runtimeStore.close();

  // Processes and dry runs per approved change, counted from the commands the CLI backend runs.
  const fake = await inProcessFakeHelm('v4');
  const cliStore = await openStore({ sqlitePath: join(dir, 'cli.db'), databaseUrl: '' });
  const cliRuntime = await createRuntime({
    store: cliStore,
    agents: [createHelmAgent({ run: fake.run })],
    agentOptions: { helm: { backend: 'cli', charts: DEMO_REPOSITORY_DIR, helmPath: fake.helmPath, kubectlPath: fake.kubectlPath } },
  });
  for (const [operation, command] of [
    ['install', 'install webapp as web version 1.0.0 set replicaCount=2'],
    ['upgrade', 'upgrade web to version 1.1.0 set replicaCount=3'],
  ] as const) {
    const before = fake.calls.length;
    const session = await cliRuntime.startSession({ agent: 'helm', identity: alice });
    const gate1 = await cliRuntime.send(session.id, command, alice);
    const gate2 = await cliRuntime.decide(session.id, { type: 'answer', callId: gate1.interrupt!.callId, answer: 'yes' }, alice);
    await cliRuntime.decide(session.id, { type: 'approve', callId: gate2.interrupt!.callId }, approver);
    const calls = fake.calls.slice(before);
    results.push({
      system: 'helm-cli-per-approved-change',
      operation,
      processes: calls.length,
      helm: calls.filter((argv) => argv[0] === 'helm').length,
      kubectl: calls.filter((argv) => argv[0] === 'kubectl').length,
      server_dry_runs: calls.filter((argv) => argv.includes('--dry-run=server')).length,
    });
  }
  await cliRuntime.close();
  await cliStore.close();
  await fake.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}

console.table(results);
const out = new URL('./results/', import.meta.url).pathname;
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'helm.json'), `${JSON.stringify({ results }, null, 2)}\n`);
