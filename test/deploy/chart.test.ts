import { execFileSync, spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { type HelmMajor, realHelmBinaries } from '../../src/testing/real-helm-binaries.ts';
import { KubernetesSchemas, PINNED_KUBERNETES_VERSION } from '../helm/kubernetes-schema.ts';

// opsgate's own chart, checked with the real Helm 3.17 and 4.1 binaries: lint --strict, template with
// the default values and with every option on (test/deploy/full-values.yaml), and every rendered
// object against the OpenAPI schema of a real kube-apiserver (test/helm/fixtures, v1.28.0).
const root = resolve(import.meta.dirname, '../..');
const chart = join(root, 'deploy/helm/opsgate');
const fullValues = join(root, 'test/deploy/full-values.yaml');
const schemas = new KubernetesSchemas();
/** Kinds from operators' CRDs, which no kube-apiserver schema holds: checked by hand below. */
const CRD_KINDS = new Set(['monitoring.coreos.com/v1/ServiceMonitor']);

type KubeObject = Record<string, unknown> & { kind: string; apiVersion: string; metadata: { name: string } };

function helm(major: HelmMajor, args: string[]): { status: number; stdout: string; stderr: string } {
  const result = spawnSync(realHelmBinaries(major).helm, args, {
    encoding: 'utf8',
    env: { ...process.env, HELM_CACHE_HOME: '/tmp/opsgate-helm-cache' },
  });
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

function render(major: HelmMajor, extra: string[] = []): KubeObject[] {
  const out = execFileSync(realHelmBinaries(major).helm, ['template', 'ops', chart, '--namespace', 'opsgate', ...extra], {
    encoding: 'utf8',
  });
  return parseAllDocuments(out)
    .map((document) => document.toJS() as KubeObject | null)
    .filter((object): object is KubeObject => object !== null);
}

function problems(objects: KubeObject[]): string[] {
  return objects
    .filter((object) => !CRD_KINDS.has(`${object.apiVersion}/${object.kind}`))
    .flatMap((object) => schemas.validate(object).map((p) => `${object.kind}/${object.metadata.name}: ${p.path || '/'} ${p.message}`));
}

const byKind = (objects: KubeObject[], kind: string) => objects.filter((object) => object.kind === kind);

describe.each(['v3', 'v4'] as const)('deploy/helm/opsgate with real Helm %s', (major) => {
  it('passes helm lint --strict with the default values and with every option on', () => {
    for (const args of [[], ['-f', fullValues]]) {
      const lint = helm(major, ['lint', '--strict', chart, ...args]);
      expect(lint.stdout + lint.stderr, args.join(' ')).toContain('1 chart(s) linted, 0 chart(s) failed');
      expect(lint.status).toBe(0);
    }
  });

  it(`renders objects a Kubernetes v${PINNED_KUBERNETES_VERSION} API server accepts, with the default values and every option on`, () => {
    const defaults = render(major);
    expect(defaults.map((object) => object.kind).sort()).toEqual([
      'Deployment',
      'NetworkPolicy',
      'PodDisruptionBudget',
      'Secret',
      'Service',
      'ServiceAccount',
    ]);
    expect(problems(defaults)).toEqual([]);
    const full = render(major, ['-f', fullValues]);
    expect(new Set(full.map((object) => object.kind))).toEqual(
      new Set([...defaults.map((o) => o.kind), 'ConfigMap', 'Ingress', 'Role', 'RoleBinding', 'ServiceMonitor', 'StatefulSet']),
    );
    expect(problems(full)).toEqual([]);
    const monitor = byKind(full, 'ServiceMonitor')[0]!;
    expect(monitor.spec).toMatchObject({ endpoints: [{ port: 'http', path: '/metrics', bearerTokenSecret: { key: 'metrics-token' } }] });
  });

  it('runs non-root on a read-only root filesystem, probes real endpoints and takes its keys and database from Secrets', () => {
    const [deployment] = byKind(render(major), 'Deployment');
    const pod = (deployment!.spec as { template: { spec: Record<string, unknown> } }).template.spec;
    const container = (pod.containers as Array<Record<string, unknown>>)[0]!;
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001 });
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(container.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
    });
    expect(container.livenessProbe).toMatchObject({ httpGet: { path: '/healthz' } });
    expect(container.readinessProbe).toMatchObject({ httpGet: { path: '/readyz' } });
    const env = Object.fromEntries((container.env as Array<{ name: string; valueFrom?: unknown }>).map((e) => [e.name, e.valueFrom]));
    expect(env.OPSGATE_DATABASE_URL).toEqual({ secretKeyRef: { name: 'opsgate-database', key: 'url' } });
    for (const [name, key] of [
      ['OPSGATE_COOKIE_KEY', 'cookie'],
      ['OPSGATE_SECRETS_KEY', 'secrets'],
      ['OPSGATE_AUDIT_KEY', 'audit'],
    ] as const)
      expect(env[name]).toEqual({ secretKeyRef: { name: 'ops-opsgate-keys', key } });
  });

  it('grants no rights unless asked, and then only a Role in each Helm-agent namespace', () => {
    const defaults = render(major);
    expect(defaults.filter((object) => /Role/.test(object.kind))).toEqual([]);
    const full = render(major, ['-f', fullValues]);
    expect(full.filter((object) => object.kind.startsWith('Cluster'))).toEqual([]);
    expect(byKind(full, 'Role').map((role) => (role.metadata as { namespace?: string }).namespace)).toEqual(['shop', 'payments']);
    const [deployment] = byKind(full, 'Deployment');
    expect((deployment!.spec as { template: { spec: Record<string, unknown> } }).template.spec.automountServiceAccountToken).toBe(true);
  });

  it('sets OPSGATE_PUBLIC_URL and OPSGATE_TRUST_PROXY to match the Ingress and its TLS', () => {
    const [deployment] = byKind(render(major, ['-f', fullValues]), 'Deployment');
    const env = (deployment!.spec as { template: { spec: { containers: Array<{ env: Array<{ name: string; value?: string }> }> } } })
      .template.spec.containers[0]!.env;
    expect(env).toEqual(
      expect.arrayContaining([
        { name: 'OPSGATE_PUBLIC_URL', value: 'https://opsgate.example.com' },
        { name: 'OPSGATE_TRUST_PROXY', value: 'true' },
        { name: 'OPSGATE_GATEWAY_CONFIG', value: '/etc/opsgate/gateway.yaml' },
      ]),
    );
  });

  it('refuses values its schema does not allow, naming the key', () => {
    const bad = helm(major, ['template', 'ops', chart, '--set', 'replicaCount=0', '--set', 'replicas=3']);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/replicaCount/);
    expect(bad.stderr).toMatch(/replicas/);
    const noDatabase = helm(major, ['template', 'ops', chart, '--set', 'database.existingSecret=']);
    expect(noDatabase.status).not.toBe(0);
    expect(noDatabase.stderr).toContain('database.existingSecret: name the Secret that holds the PostgreSQL URL');
  });
});
