import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HelmCli } from '../../src/agents/helm/backends/cli/helm-cli.ts';
import { type CommandRunner, execCommand } from '../../src/agents/helm/backends/cli/run-command.ts';
import { buildRepository } from '../../src/agents/helm/charts/build-repo.ts';
import { ChartRepository } from '../../src/agents/helm/charts/chart-repository.ts';
import { HelmService } from '../../src/agents/helm/service/helm-service.ts';
import { type KubeApiStub, startKubeApiStub } from '../../src/testing/kube-api-stub/index.ts';
import { type HelmMajor, realHelmBinaries } from '../../src/testing/real-helm-binaries.ts';
import { KubernetesSchemas } from './kubernetes-schema.ts';

// What a plan checks before approval, on the real Helm 3.17.2 and 4.1.4 against the stub API
// server (issue 30 N2, N6), through HelmService (the runtime's gates are covered by the workflow
// suites). One stub and one repository of the test charts per version.
let repositoryDir: string;
/** A chart whose Deployment has a field no Kubernetes version knows (issue 30 N6). */
const TYPO_DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-typo
spec:
  replicaz: 3
  selector:
    matchLabels: { app: typo }
  template:
    metadata:
      labels: { app: typo }
    spec:
      containers:
        - name: web
          image: nginx:1.27
`;
beforeAll(async () => {
  repositoryDir = mkdtempSync(join(tmpdir(), 'opsgate-plan-checks-'));
  const sources = join(repositoryDir, 'sources');
  cpSync(new URL('./charts/', import.meta.url).pathname, sources, { recursive: true });
  mkdirSync(join(sources, 'typo-1.0.0', 'templates'), { recursive: true });
  writeFileSync(join(sources, 'typo-1.0.0', 'Chart.yaml'), 'apiVersion: v2\nname: typo\nversion: 1.0.0\n');
  writeFileSync(join(sources, 'typo-1.0.0', 'templates', 'deployment.yaml'), TYPO_DEPLOYMENT);
  await buildRepository(join(repositoryDir, 'repo'), sources);
}, 60_000);
afterAll(() => rmSync(repositoryDir, { recursive: true, force: true }));

/** The unknown fields a v1.28 API server's schema (the real /openapi/v2, see kubernetes-schema.ts) finds, as the server names them. */
const schemas = new KubernetesSchemas();
const unknownFields = (object: Record<string, unknown>) =>
  schemas.validate(object).flatMap((problem) => {
    const field = /^unknown field "(.+)"$/.exec(problem.message)?.[1];
    if (!field) return [];
    const path = problem.path.split('/').filter(Boolean);
    return [
      path.reduce((text, part) => (/^\d+$/.test(part) ? `${text}[${part}]` : text ? `${text}.${part}` : part), '') +
        (path.length ? `.${field}` : field),
    ];
  });

describe.each<HelmMajor>(['v3', 'v4'])('plan checks on the real Helm %s against the stub API server', (major) => {
  let stub: KubeApiStub;
  let home: string;
  let service: HelmService;
  const argvs: string[][] = [];
  beforeAll(async () => {
    stub = await startKubeApiStub({ strictFields: unknownFields });
    home = mkdtempSync(join(tmpdir(), 'opsgate-plan-checks-'));
    const kubeconfig = join(home, 'config');
    writeFileSync(kubeconfig, stub.kubeconfig(), { mode: 0o600 });
    const binaries = realHelmBinaries(major);
    const run: CommandRunner = (file, args, options) => {
      argvs.push([...args]);
      return execCommand(file, args, { ...options, env: { ...options.env, HOME: home } });
    };
    service = new HelmService(
      new HelmCli({ helmPath: binaries.helm, kubectlPath: binaries.kubectl, kubeconfig, run }),
      await ChartRepository.open(join(repositoryDir, 'repo')),
    );
  }, 60_000);
  afterAll(async () => {
    await stub?.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('N2: a first install of a chart whose templates hold custom resources of its own crds/ is planned, says what was not checked, and installs', async () => {
    const request = { operation: 'install' as const, release: 'cron', namespace: 'default', chart: 'operator' };
    const plan = await service.plan(request);
    expect(plan.resources.create).toEqual(['CronTab.stable.example.com/nightly']);
    const risk = plan.risks.find((line) => line.startsWith('planned with a client-side render'));
    expect(risk).toContain(major === 'v3' ? '(helm template)' : '(install --dry-run=client)');
    expect(risk).toContain('Not checked: lookup');
    expect(plan.risks.join('\n')).toContain(
      "the API server's strict check (a dry run) could not check CronTab (stable.example.com/v1) objects: the kind is not served yet",
    );
    if (major === 'v3')
      expect(argvs.find((argv) => argv[0] === 'template')).toEqual(
        expect.arrayContaining(['--kube-version', 'v1.32.3', '--api-versions', 'stable.example.com/v1/CronTab']),
      );
    const done = await service.execute(request, plan.planHash);
    expect(done.status).toMatchObject({ version: 1, info: { status: 'deployed' } });
    expect(stub.object('stable.example.com/v1', 'CronTab', 'default', 'nightly')).toMatchObject({ spec: { cronSpec: '0 3 * * *' } });
  });

  it('N6: an unknown field (spec.replicaz) is refused by the API server in planning, before any approval', async () => {
    const request = { operation: 'install' as const, release: 'typo', namespace: 'default', chart: 'typo' };
    await expect(service.plan(request)).rejects.toMatchObject({
      code: 'HELM_OBJECTS_INVALID',
      message: expect.stringContaining('Deployment: unknown field "spec.replicaz"'),
    });
    // The strict check itself: an apply dry run with fieldValidation=Strict, nothing stored.
    expect(
      stub.requests.some((line) =>
        /^PATCH \/apis\/apps\/v1\/namespaces\/default\/deployments\/typo-typo\?.*dryRun=All.*fieldValidation=Strict/.test(line),
      ),
    ).toBe(true);
    expect(stub.object('apps/v1', 'Deployment', 'default', 'typo-typo')).toBeUndefined();
  });
});
