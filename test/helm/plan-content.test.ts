import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HelmCli } from '../../src/agents/helm/backends/cli/helm-cli.ts';
import { buildRepository, SOURCES_DIR } from '../../src/agents/helm/charts/build-repo.ts';
import { ChartRepository } from '../../src/agents/helm/charts/chart-repository.ts';
import { HelmMcpClient } from '../../src/agents/helm/mcp/mcp-client.ts';
import { createHelmMcpServer } from '../../src/agents/helm/mcp/mcp-server.ts';
import { HelmService } from '../../src/agents/helm/service/helm-service.ts';
import { type InProcessFakeHelm, inProcessFakeHelm } from './fake-helm/install-fakes.ts';

// Why the fake `helm`: not moved yet: hook text changed between plan and execution is opsgate's comparison
// over the dry run's JSON; Secret redaction on the real Helm 4.1 is in secret-redaction-real-helm.test.ts.

// Issue 20 M3 and M4 (review 2026-11-24-helm §2 "Misleading"). M3: hooks were bound by kind, name
// and events only (parse-output.ts), so a changed migration hook was neither shown nor covered by
// the approval hash. M4: the dry run's and status's Secret data and the user values reached the
// model, the approval panel and stored previews. Charts: test/helm/charts/hooked-1.0.0 (a
// pre-upgrade Job, shaped like Helm's testcharts *-hooks) and credentials-1.0.0 (a Secret and a
// hook Secret from the values, as database charts do); the hooks come back in the dry run's
// `-o json` `hooks[].manifest`, as Helm's Release JSON carries them.

const TEST_CHARTS = new URL('./charts/', import.meta.url).pathname;
const PASSWORD = 'hunter2-correct-horse';

describe('what a plan binds and shows', () => {
  let fake: InProcessFakeHelm | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    vi.useRealTimers();
    await fake?.close();
    fake = undefined;
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  /** opsgate's demo charts and the test charts, packed into a repository under `dir`/`name`. */
  async function repository(name = 'repo', change?: (sources: string) => void): Promise<ChartRepository> {
    dir ??= mkdtempSync(join(tmpdir(), 'opsgate-plan-content-'));
    const sources = join(dir, `${name}-sources`);
    cpSync(SOURCES_DIR, sources, { recursive: true });
    cpSync(TEST_CHARTS, sources, { recursive: true });
    change?.(sources);
    await buildRepository(join(dir, name), sources);
    return ChartRepository.open(join(dir, name));
  }

  async function service(repo: ChartRepository) {
    fake ??= await inProcessFakeHelm('v3');
    return new HelmService(new HelmCli({ helmPath: fake.helmPath, kubectlPath: fake.kubectlPath, run: fake.run }), repo);
  }

  it('M3: a hook is shown with its content, and a hook changed after approval makes the plan stale', async () => {
    const helm = await service(await repository());
    const hooked = { release: 'app', namespace: 'default', chart: 'hooked' };
    await helm.execute({ operation: 'install', ...hooked }, (await helm.plan({ operation: 'install', ...hooked })).planHash);
    const upgrade = { operation: 'upgrade' as const, ...hooked, values: { replicaCount: 2 } };
    const plan = await helm.plan(upgrade);
    expect(plan.hooks?.find((hook) => hook.key === 'Job/app-migrate')?.manifest).toMatch(/image: nginx:1\.27/);
    // The chart is published again under the same version with another migration command: the
    // release manifest is the same, only the hook differs.
    const republished = await repository('republished', (sources) =>
      writeFileSync(
        join(sources, 'hooked-1.0.0', 'templates', 'migrate-job.yaml'),
        [
          'apiVersion: batch/v1',
          'kind: Job',
          'metadata:',
          '  name: {{ .Release.Name }}-migrate',
          '  annotations:',
          '    "helm.sh/hook": pre-upgrade,pre-install',
          '    "helm.sh/hook-delete-policy": hook-succeeded',
          'spec:',
          '  template:',
          '    spec:',
          '      restartPolicy: Never',
          '      containers:',
          '        - name: migrate',
          '          image: {{ .Values.image }}',
          '          args: ["--drop-all-tables"]',
          '',
        ].join('\n'),
      ),
    );
    const later = await service(republished);
    const again = await later.plan(upgrade);
    expect(again.resources).toEqual(plan.resources);
    expect(again.hooks?.find((hook) => hook.key === 'Job/app-migrate')?.manifest).toMatch(/--drop-all-tables/);
    await expect(later.execute(upgrade, plan.planHash)).rejects.toMatchObject({ code: 'HELM_PLAN_STALE' });
  });

  it('M4: Secret data and secret values never leave the service, and Helm still gets them', async () => {
    const helm = await service(await repository());
    const install = {
      operation: 'install' as const,
      release: 'db',
      namespace: 'default',
      chart: 'credentials',
      values: { db: { password: PASSWORD } },
    };
    const base64 = Buffer.from(PASSWORD).toString('base64');
    const plan = await helm.plan(install);
    const seen = (value: unknown) => JSON.stringify(value);
    expect(seen(plan)).not.toContain(PASSWORD);
    expect(seen(plan)).not.toContain(base64);
    expect(plan.resources.create).toEqual(['ConfigMap/db-settings', 'Secret/db-db']);
    expect((plan.values as { db: { password: string } }).db.password).toMatch(/^\(hidden; hmac [0-9a-f]{16}\)$/);
    expect(plan.hooks?.[0]?.manifest).toMatch(/bootstrap: "\(hidden; hmac [0-9a-f]{16}\)"/);
    const done = await helm.execute(install, plan.planHash);
    expect(seen(done)).not.toContain(PASSWORD);
    // What Helm was given: the real password (the release's stored values and manifest).
    const stored = await fake!.cluster.status('db', 'default');
    expect(stored.config).toEqual({ db: { password: PASSWORD } });
    expect(stored.manifest).toContain(PASSWORD);

    expect(seen(await helm.releaseStatus('db', 'default'))).not.toContain(PASSWORD);
    const reuse = { operation: 'upgrade' as const, release: 'db', namespace: 'default', values: { image: 'postgres:17' } };
    expect(seen(await helm.validate(reuse))).not.toContain(PASSWORD);
    const upgrade = await helm.plan(reuse);
    expect(seen(upgrade)).not.toContain(PASSWORD);
    expect(upgrade.resources).toMatchObject({ change: ['ConfigMap/db-settings'], unchanged: ['Secret/db-db'] });

    // A changed password is still a change, and still another plan.
    const rotate = await helm.plan({ ...reuse, values: { db: { password: 'another-one' } } });
    expect(rotate.resources.change).toEqual(['Secret/db-db']);
    expect(rotate.valueChanges).toEqual([
      expect.objectContaining({
        path: 'db.password',
        change: 'changed',
        current: expect.stringMatching(/^\(hidden/),
        proposed: expect.stringMatching(/^\(hidden/),
      }),
    ]);
    expect(rotate.planHash).not.toBe(upgrade.planHash);
    expect(seen(rotate)).not.toContain('another-one');
  });

  it('M4: through the Helm MCP server (what the model, the approval panel and the audit receive)', async () => {
    const helm = await service(await repository());
    const install = {
      operation: 'install' as const,
      release: 'db',
      namespace: 'default',
      chart: 'credentials',
      values: { db: { password: PASSWORD } },
    };
    await helm.execute(install, (await helm.plan(install)).planHash);
    const client = await HelmMcpClient.inProcess(createHelmMcpServer(helm));
    try {
      const answers = [
        await client.call('helm_get_release_status', { release: 'db', namespace: 'default' }),
        await client.call('helm_get_installation_plan', { operation: 'upgrade', release: 'db', namespace: 'default' }),
        await client.call('helm_validate_values', { operation: 'upgrade', release: 'db', namespace: 'default' }),
        await client.call('helm_get_installation_plan', { operation: 'uninstall', release: 'db', namespace: 'default' }),
      ];
      for (const answer of answers) expect(JSON.stringify(answer)).not.toContain(PASSWORD);
    } finally {
      await client.close();
    }
  });

  // M8: a `now | date` stamp at day or second resolution renders alike twice in a row, so it was
  // not found volatile, and the plan came back HELM_PLAN_STALE at every execution after midnight.
  it('M8: a plan made before midnight still runs after it; the stamp is masked, everything else stays bound', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-24T23:59:58Z'));
    const helm = await service(await repository());
    const install = { operation: 'install' as const, release: 'app', namespace: 'default', chart: 'stamped' };
    const plan = await helm.plan(install);
    expect(plan.manifestDiff).toContain('deployed-at: "<render time>"');
    expect(plan.manifestDiff).toContain('day: "<render time>"');
    expect(plan.manifestDiff).toContain('epoch: "<render time>"');
    expect(plan.manifestDiff).toContain('since: "2020-01-01"');
    expect(plan.volatile).toBeUndefined();
    expect(plan.risks.join(' ')).toMatch(/ConfigMap\/app-stamped carries the time of rendering/);
    vi.setSystemTime(new Date('2026-11-25T00:03:10Z'));
    const done = await helm.execute(install, plan.planHash);
    expect(done.status?.manifest).toContain('day: "2026-11-25"');
    // The rest is still bound: another greeting is another plan.
    const other = await helm.plan({ operation: 'upgrade', release: 'app', namespace: 'default', values: { greeting: 'hi' } });
    expect(other.resources.change).toEqual(['ConfigMap/app-stamped']);
    expect(other.manifestDiff).toMatch(/- {2}greeting: "hello"\n\+ {2}greeting: "hi"/);
  });
});
