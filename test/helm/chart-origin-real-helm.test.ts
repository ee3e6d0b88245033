import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HelmCli } from '../../src/agents/helm/backends/cli/helm-cli.ts';
import { ChartRepository } from '../../src/agents/helm/charts/chart-repository.ts';
import { DIGEST_LABEL, SOURCE_LABEL } from '../../src/agents/helm/service/chart-origin.ts';
import type { PlanRequest } from '../../src/agents/helm/service/helm-service.ts';
import { type HelmMajor, realHelmBinaries } from '../../src/testing/real-helm-binaries.ts';
import { type RealHelmRig, startRealHelmRig } from './support/real-helm-rig.ts';

/** Generous for a loaded 2-core machine (each real helm/kubectl process costs 0.3–1 s of CPU); not a timed assertion. */
const REAL_BINARY_TIMEOUT_MS = 120_000;
const INHOUSE_CHART = new URL('./charts-inhouse/webapp-1.0.0', import.meta.url).pathname;

// Issue 30 N5 (review 2026-11-26 §2 N5): opsgate's demo repository holds `webapp 1.0.0` (appVersion
// 1.25.3, a Deployment and a Service); a team's `helm repo` repository `corp` holds its own
// `webapp 1.0.0` (appVersion 9.9, one ConfigMap). The real Helm 3.17.2 and 4.1.4 against the stub API
// server, the `corp` repository served over HTTP from this process (async execFile only: the stub
// and the repository answer from this process).
describe('a chart is taken from the source its release came from, and every plan names source and digest (N5)', () => {
  let rig: RealHelmRig;
  let demo: ChartRepository;
  beforeAll(async () => {
    demo = await ChartRepository.open();
    rig = await startRealHelmRig({
      name: 'origin',
      chartRepository: demo,
      helmRepository: { name: 'corp', charts: [{ path: INHOUSE_CHART }] },
    });
  }, REAL_BINARY_TIMEOUT_MS);
  afterAll(() => rig?.close());

  describe.each(['v3', 'v4'] as const)('real Helm %s', (major: HelmMajor) => {
    const service = () => rig.service(major);
    // How the release's labels are read differs (Helm 4 `get metadata`, Helm 3 the storage Secret), so
    // what reads them runs on both; choosing among sources once they are read is opsgate's, on Helm 4.
    const opsgateLogicIt = major === 'v4' ? it : undefined;
    const legacy = `legacy-${major}`;
    const inhouse = `inhouse-${major}`;

    beforeAll(async () => {
      // What a team did before opsgate: the in-house chart, installed by hand (no record of its source).
      await rig.helm(major, ['install', legacy, 'corp/webapp', '--version', '1.0.0', '--namespace', 'default']);
    }, REAL_BINARY_TIMEOUT_MS);

    it(
      'an upgrade naming no chart keeps the in-house chart, not the demo namesake, and says the source is unproven',
      async () => {
        const plan = await service().plan({ operation: 'upgrade', release: legacy, namespace: 'default', values: { greeting: 'hi' } });
        expect(plan.chart).toMatchObject({ name: 'webapp', version: '1.0.0', appVersion: '9.9', source: 'corp/webapp' });
        expect(plan.chart?.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
        expect(plan.resources).toMatchObject({ create: [], delete: [], change: [`ConfigMap/${legacy}-inhouse`] });
        expect(plan.risks.join('\n')).toContain(`release ${legacy} carries no record of its chart's source`);
      },
      REAL_BINARY_TIMEOUT_MS,
    );

    opsgateLogicIt?.(
      'the demo namesake named explicitly is refused: same name and version, another appVersion',
      async () => {
        const request: PlanRequest = { operation: 'upgrade', release: legacy, namespace: 'default', chart: 'webapp', version: '1.0.0' };
        await expect(service().plan(request)).rejects.toMatchObject({ code: 'HELM_CHART_SOURCE_MISMATCH' });
        const allowed = await service().plan({ ...request, allowSourceChange: true });
        expect(allowed.chart).toMatchObject({ appVersion: '1.25.3', source: `${demo.url}webapp` });
      },
      REAL_BINARY_TIMEOUT_MS,
    );

    it(
      'an install through opsgate records the source on the release; an upgrade from another source is refused unless allowed, then flagged',
      async () => {
        const helmService = service();
        const install: PlanRequest = {
          operation: 'install',
          release: inhouse,
          namespace: 'default',
          chart: 'corp/webapp',
          version: '1.0.0',
        };
        const plan = await helmService.plan(install);
        expect(plan.chart).toMatchObject({ source: 'corp/webapp', digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });
        await helmService.execute(install, plan.planHash);
        const binaries = realHelmBinaries(major);
        const labels = await new HelmCli({
          helmPath: binaries.helm,
          kubectlPath: binaries.kubectl,
          kubeconfig: rig.kubeconfig,
          env: rig.env(),
        }).releaseLabels(inhouse, 'default', 1);
        expect(labels).toMatchObject({
          [SOURCE_LABEL]: expect.stringMatching(/^[0-9a-f]{56}$/),
          [DIGEST_LABEL]: plan.chart!.digest!.slice(7, 63),
        });

        const switchToDemo: PlanRequest = {
          operation: 'upgrade',
          release: inhouse,
          namespace: 'default',
          chart: 'demo/webapp',
          version: '1.0.0',
        };
        await expect(helmService.plan(switchToDemo)).rejects.toMatchObject({
          code: 'HELM_CHART_SOURCE_CHANGED',
          message: expect.stringContaining('allowSourceChange'),
        });
        const flagged = await helmService.plan({ ...switchToDemo, allowSourceChange: true });
        expect(flagged.risks.join('\n')).toContain('the chart source changes');
        const kept = await helmService.plan({ operation: 'upgrade', release: inhouse, namespace: 'default' });
        expect(kept.chart).toMatchObject({ source: 'corp/webapp', digest: plan.chart!.digest });
        expect(kept.risks.join('\n')).not.toContain('no record');
      },
      REAL_BINARY_TIMEOUT_MS,
    );

    opsgateLogicIt?.(
      "a chart of opsgate's repository folder is named by its url and index digest",
      async () => {
        const plan = await service().plan({ operation: 'install', release: `web-${major}`, namespace: 'default', chart: 'webapp' });
        expect(plan.chart).toMatchObject({ source: `${demo.url}webapp`, digest: `sha256:${demo.entry('webapp', '1.1.0').digest}` });
      },
      REAL_BINARY_TIMEOUT_MS,
    );
  });
});
