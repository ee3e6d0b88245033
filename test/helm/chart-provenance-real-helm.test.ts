import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HelmCli } from '../../src/agents/helm/backends/cli/helm-cli.ts';
import type { PlanRequest } from '../../src/agents/helm/service/helm-service.ts';
import { provenanceSummary } from '../../src/agents/helm/service/plan.ts';
import type { HelmMajor } from '../../src/testing/real-helm-binaries.ts';
import { type RealHelmRig, startRealHelmRig } from './support/real-helm-rig.ts';

const SIGNED_CHART = new URL('./charts-extra/rollout-1.0.0', import.meta.url).pathname;
const UNSIGNED_CHART = new URL('./charts-extra/tested-1.0.0', import.meta.url).pathname;
/** A throwaway test key (fixtures/provenance/README.md): its secret keyring signs, its public keyring is the admin's. */
const KEYS = new URL('./fixtures/provenance/', import.meta.url).pathname;
/** Generous for a loaded 2-core machine; not a timed assertion. */
const REAL_BINARY_TIMEOUT_MS = 120_000;

// Chart provenance when an admin configured a keyring (issue 30, review 2026-11-26 E-items), on
// Helm 3.17 and 4.1: opsgate's chart folder holds `rollout`, packaged with `helm package --sign`
// (its `.prov` beside it), and `tested`, packaged without. The signed one is planned with its
// signer in the plan and installed with `--verify --keyring`; the unsigned one is refused in planning.
// The same two charts are served by a `helm repo` repository `corp` over HTTP: `helm pull` fetches
// the `.prov` beside the archive (`--prov`), so a repository chart is verified the same way.
describe('chart provenance with a configured keyring, on the real binaries', () => {
  let rig: RealHelmRig;
  const service = (major: HelmMajor) => rig.service(major, { keyring: join(KEYS, 'pubring.gpg') });
  beforeAll(async () => {
    const signing = ['--sign', '--key', 'opsgate test', '--keyring', join(KEYS, 'secring.gpg')];
    const charts = [{ path: SIGNED_CHART, packageArgs: signing }, { path: UNSIGNED_CHART }];
    rig = await startRealHelmRig({ name: 'prov', charts, helmRepository: { name: 'corp', charts } });
  }, REAL_BINARY_TIMEOUT_MS);
  afterAll(() => rig?.close());

  it('install and upgrade pass --verify --keyring, so Helm checks the archive it installs too', () => {
    const keyring = join(KEYS, 'pubring.gpg');
    const cli = new HelmCli({ keyring });
    const request = {
      release: 'r',
      namespace: 'default',
      chart: undefined as never,
      chartArchive: 'r-1.0.0.tgz',
      values: {},
      createNamespace: false,
    };
    for (const args of [cli.installArgs(request, 'values.json', 3), cli.upgradeArgs(request, 'values.json', 4)])
      expect(args.join(' ')).toContain(`--verify --keyring ${keyring}`);
    expect(new HelmCli({}).installArgs(request, 'values.json', 4)).not.toContain('--verify');
  });

  describe.each(['v3', 'v4'] as const)('on real Helm %s', (major: HelmMajor) => {
    it(
      'a signed chart: the plan names its signer, and the install runs with --verify',
      async () => {
        const helm = service(major);
        const install: PlanRequest = { operation: 'install', release: `signed-${major}`, namespace: 'default', chart: 'rollout' };
        const plan = await helm.plan(install);
        expect(plan.chart?.provenance).toEqual({
          signedBy: 'opsgate test <test@opsgate.invalid>',
          fingerprint: 'FCC51541083F6305FA7DD7C4631BDB5662257EB6',
        });
        expect(provenanceSummary(plan)).toBe(
          'signature verified: signed by opsgate test <test@opsgate.invalid>, key FCC51541083F6305FA7DD7C4631BDB5662257EB6',
        );
        const done = await helm.execute(install, plan.planHash);
        expect(done.status).toMatchObject({ info: { status: 'deployed' } });
      },
      REAL_BINARY_TIMEOUT_MS,
    );

    it(
      'a chart without a .prov is refused in planning, before any approval',
      async () => {
        const helm = service(major);
        await expect(
          helm.plan({ operation: 'install', release: `unsigned-${major}`, namespace: 'default', chart: 'tested' }),
        ).rejects.toMatchObject({
          code: 'HELM_CHART_UNVERIFIED',
          message: expect.stringContaining('could not load provenance file'),
        });
        await expect(helm.detectScenario(`unsigned-${major}`, 'default')).resolves.toMatchObject({ scenario: 'INSTALL' });
      },
      REAL_BINARY_TIMEOUT_MS,
    );

    it(
      'a chart from a helm repo repository: its .prov is pulled with it, so a signed one is verified and an unsigned one refused',
      async () => {
        const helm = service(major);
        const signed = await helm.plan({ operation: 'install', release: `repo-${major}`, namespace: 'default', chart: 'corp/rollout' });
        expect(signed.chart).toMatchObject({
          source: 'corp/rollout',
          provenance: { signedBy: 'opsgate test <test@opsgate.invalid>', fingerprint: 'FCC51541083F6305FA7DD7C4631BDB5662257EB6' },
        });
        await expect(
          helm.plan({ operation: 'install', release: `repo-unsigned-${major}`, namespace: 'default', chart: 'corp/tested' }),
        ).rejects.toMatchObject({ code: 'HELM_CHART_UNVERIFIED', message: expect.stringContaining('could not load provenance file') });
      },
      REAL_BINARY_TIMEOUT_MS,
    );
  });
});
