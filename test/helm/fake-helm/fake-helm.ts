/**
 * The fake `helm` or `kubectl` as an executable (argv[2] says which), for the tests where the
 * process boundary is under test: timeouts, cancellation, exit codes. State: FAKE_HELM_STATE;
 * version: FAKE_HELM_VERSION; argv log: FAKE_HELM_LOG (each line ends with the process id);
 * timing: FAKE_HELM_ROLLOUT_SECONDS and FAKE_HELM_HOOK_SECONDS in Helm seconds, each lasting
 * FAKE_HELM_SECOND_MS real milliseconds (default 1000).
 */
import { appendFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { helmSimulatorMigrations } from '../../../src/agents/helm/backends/simulator/migration.ts';
import { SimulatedCluster } from '../../../src/agents/helm/backends/simulator/simulated-cluster.ts';
import { openStore } from '../../../src/core/store/index.ts';
import { FakeFailure, runFakeHelm } from './fake-helm-commands.ts';
import { runFakeKubectl } from './fake-kubectl-commands.ts';

const [tool, ...argv] = process.argv.slice(2);
const env = process.env;
if (env.FAKE_HELM_LOG) appendFileSync(env.FAKE_HELM_LOG, `${tool} ${argv.join(' ')} #${process.pid}\n`);
const store = await openStore({ sqlitePath: env.FAKE_HELM_STATE ?? '', databaseUrl: '', migrations: helmSimulatorMigrations });
const cluster = new SimulatedCluster(store);
const secondMs = Number(env.FAKE_HELM_SECOND_MS ?? 1000);
let code = 0;
try {
  const stdout =
    tool === 'kubectl'
      ? await runFakeKubectl(argv, cluster)
      : await runFakeHelm(argv, {
          version: env.FAKE_HELM_VERSION ?? 'v3.21.4+g2e3a0c9',
          cluster,
          timing: { rolloutSeconds: Number(env.FAKE_HELM_ROLLOUT_SECONDS ?? 0), hookSeconds: Number(env.FAKE_HELM_HOOK_SECONDS ?? 0) },
          sleep: (seconds) => sleep(seconds * secondMs),
        });
  process.stdout.write(stdout);
} catch (error) {
  if (!(error instanceof FakeFailure)) throw error;
  process.stderr.write(error.stderr);
  code = 1;
}
// The store commits on close: a failed operation's writes (a failed or pending revision) must land before exit.
await store.close();
process.exitCode = code;
