import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { ChartRepository } from '../../src/agents/helm/charts/chart-repository.ts';
import type { LoadedChart } from '../../src/agents/helm/charts/load-chart.ts';
import { renderChart } from '../../src/agents/helm/charts/render-chart.ts';
import { mergeValues, type Values } from '../../src/agents/helm/values/merge-values.ts';
import { validateValues } from '../../src/agents/helm/values/validate-values.ts';
import { KubernetesSchemas, PINNED_KUBERNETES_VERSION } from './kubernetes-schema.ts';

// Issue 12, point 2 and its acceptance: every demo chart's rendered manifests validate against the
// Kubernetes schemas of a pinned version, so a chart a real API server would reject cannot ship.

/**
 * APIs a demo chart may use although the pinned version no longer serves them: the version that
 * removed them (Kubernetes deprecation guide) and their successor, whose schema is a superset of
 * theirs (every batch/v1beta1 CronJobSpec field carries over to batch/v1, with the same JobSpec).
 * Such a chart must declare a kubeVersion that stops before the removal, so Helm refuses it where
 * the API is gone; its objects are checked against the successor's schema, which misses only
 * fields the successor added (timeZone).
 */
const REMOVED_APIS: Record<string, { readonly removedIn: string; readonly successor: string }> = {
  'batch/v1beta1/CronJob': { removedIn: '1.25.0', successor: 'batch/v1' },
};

/** A representative user override: what the README's and the workflow tests' requests set. */
const OVERRIDE: Values = {
  replicaCount: 3,
  resources: { limits: { cpu: '1', memory: '512Mi' }, requests: { cpu: '250m', memory: '128Mi' } },
};

const schemas = new KubernetesSchemas();
const repository = await ChartRepository.open();
const charts: Array<{ label: string; chart: LoadedChart }> = [];
for (const item of repository.search()) {
  for (const entry of repository.versions(item.name)) {
    charts.push({ label: `${entry.name}-${entry.version}`, chart: await repository.load(entry.name, entry.version) });
  }
}

function renderObjects(chart: LoadedChart, values: Values): Array<Record<string, unknown>> {
  const manifest = renderChart(chart, mergeValues(chart.defaults, values), { releaseName: 'web', namespace: 'default', revision: 1 });
  const objects: Array<Record<string, unknown>> = [];
  for (const document of parseAllDocuments(manifest)) {
    // A template Helm renders into YAML the server cannot parse fails the install just as well.
    expect(document.errors.map((error) => error.message)).toEqual([]);
    const object = document.toJS() as unknown;
    if (object === null) continue;
    expect(typeof object).toBe('object');
    objects.push(object as Record<string, unknown>);
  }
  expect(objects.length).toBeGreaterThan(0);
  return objects;
}

/** `Kind/name: problem at path` lines, so a failure reads like the API server's error. */
function problemsOf(objects: Array<Record<string, unknown>>): string[] {
  return objects.flatMap((object) => {
    const name = String((object.metadata as Record<string, unknown> | undefined)?.name ?? '?');
    return schemas.validate(object).map((problem) => `${String(object.kind)}/${name}: ${problem.path || '/'} ${problem.message}`);
  });
}

function servedOnPinned(chart: LoadedChart): boolean {
  const constraint = chart.metadata.kubeVersion;
  return !constraint || semver.satisfies(PINNED_KUBERNETES_VERSION, constraint, { includePrerelease: true });
}

describe(`demo charts against the Kubernetes v${PINNED_KUBERNETES_VERSION} schemas`, () => {
  it('the schemas are the pinned version and know the kinds the charts use', () => {
    expect(schemas.version).toBe(`v${PINNED_KUBERNETES_VERSION}`);
    expect(schemas.kinds()).toEqual(expect.arrayContaining(['apps/v1/Deployment', 'v1/Service', 'v1/ConfigMap', 'batch/v1/CronJob']));
    expect(schemas.kinds()).not.toContain('batch/v1beta1/CronJob');
    expect(charts.length).toBeGreaterThanOrEqual(6);
  });

  it.each(charts)(
    '$label: every object validates with default values and with an override, or kubeVersion keeps it off this version',
    ({ chart }) => {
      if (servedOnPinned(chart)) {
        expect(validateValues(chart, OVERRIDE).errors).toEqual([]);
        for (const values of [{}, OVERRIDE]) expect(problemsOf(renderObjects(chart, values))).toEqual([]);
        return;
      }
      // Helm refuses this chart on the pinned version; what it renders must be an API that version
      // removed, and its kubeVersion must stop before that removal.
      const constraint = chart.metadata.kubeVersion ?? '';
      for (const values of [{}, OVERRIDE]) {
        const objects = renderObjects(chart, values).map((object) => {
          const key = `${String(object.apiVersion)}/${String(object.kind)}`;
          const removed = REMOVED_APIS[key];
          if (!removed) throw new Error(`${key} is not served by Kubernetes v${PINNED_KUBERNETES_VERSION} and is not a known removed API`);
          const admitsRemoval = semver.intersects(constraint, `>=${removed.removedIn}-0`, { includePrerelease: true });
          expect(admitsRemoval, `kubeVersion ${constraint} admits ${removed.removedIn}, which removed ${key}`).toBe(false);
          return { ...object, apiVersion: removed.successor };
        });
        expect(problemsOf(objects)).toEqual([]);
      }
    },
  );
});

describe('the validator refuses what a real API server refuses', () => {
  const deployment = (): Record<string, unknown> => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web-webapp', namespace: 'default', labels: { 'app.kubernetes.io/instance': 'web' } },
    spec: {
      replicas: 2,
      selector: { matchLabels: { 'app.kubernetes.io/instance': 'web' } },
      template: {
        metadata: { labels: { 'app.kubernetes.io/instance': 'web' } },
        spec: { containers: [{ name: 'webapp', image: 'nginx:1.25.3', ports: [{ name: 'http', containerPort: 80 }], resources: null }] },
      },
    },
  });
  const container = (object: Record<string, unknown>): Record<string, unknown> =>
    ((object.spec as { template: { spec: { containers: Array<Record<string, unknown>> } } }).template.spec.containers[0] ?? {}) as Record<
      string,
      unknown
    >;

  it('accepts a well-formed Deployment (a null field counts as absent, as the server decodes it)', () => {
    expect(schemas.validate(deployment())).toEqual([]);
  });

  it("refuses the old charts' mistakes: a Go map string for resources, no selector, a selector that misses the pods", () => {
    const mapString = deployment();
    container(mapString).resources = 'map[limits:map[cpu:500m memory:256Mi]]';
    expect(schemas.validate(mapString)).toEqual([{ path: '/spec/template/spec/containers/0/resources', message: 'must be object' }]);
    const noSelector = deployment();
    delete (noSelector.spec as Record<string, unknown>).selector;
    expect(schemas.validate(noSelector).map((p) => p.message)).toContain("must have required property 'selector'");
    const mismatch = deployment();
    (mismatch.spec as { selector: unknown }).selector = { matchLabels: { 'app.kubernetes.io/name': 'other' } };
    expect(schemas.validate(mismatch).map((p) => p.message)).toContain('`selector` does not match template `labels`');
  });

  it('is strict about unknown fields, types, enums and quantities, like Helm with client-side validation', () => {
    const typo = deployment();
    (typo.spec as Record<string, unknown>).replica = 3;
    expect(schemas.validate(typo)).toEqual([{ path: '/spec', message: 'unknown field "replica"' }]);
    const wrongType = deployment();
    (wrongType.spec as Record<string, unknown>).replicas = '3';
    expect(schemas.validate(wrongType).map((p) => p.path)).toEqual(['/spec/replicas']);
    const badPolicy = deployment();
    container(badPolicy).imagePullPolicy = 'Sometimes';
    expect(schemas.validate(badPolicy).map((p) => p.path)).toEqual(['/spec/template/spec/containers/0/imagePullPolicy']);
    const quantities = deployment();
    container(quantities).resources = { limits: { cpu: 1, memory: '256Mi' }, requests: { cpu: 'lots' } };
    expect(schemas.validate(quantities).map((p) => p.path)).toContain('/spec/template/spec/containers/0/resources/requests/cpu');
    const twoContainers = deployment();
    const spec = (twoContainers.spec as { template: { spec: { containers: unknown[] } } }).template.spec;
    spec.containers = [spec.containers[0], spec.containers[0]];
    expect(schemas.validate(twoContainers)).toEqual([
      { path: '/spec/template/spec/containers/1/name', message: 'Duplicate value: "webapp"' },
    ]);
  });

  it('refuses unknown kinds and removed API versions instead of skipping them', () => {
    expect(schemas.validate({ apiVersion: 'batch/v1beta1', kind: 'CronJob', metadata: { name: 'x' } })[0]?.message).toContain(
      'no kind "CronJob" is registered for version "batch/v1beta1"',
    );
    expect(schemas.validate({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'x' } })).toHaveLength(1);
    expect(
      schemas.validate({ apiVersion: 'flowcontrol.apiserver.k8s.io/v1beta2', kind: 'FlowSchema', metadata: { name: 'x' } }),
    ).toHaveLength(1);
  });

  it('checks names and labels the server checks', () => {
    const badNames = deployment();
    (badNames.metadata as Record<string, unknown>).name = 'Web_App';
    (badNames.metadata as { labels: Record<string, string> }).labels['app.kubernetes.io/version'] = 'not valid!';
    container(badNames).name = 'Web';
    expect(schemas.validate(badNames).map((p) => p.path)).toEqual([
      '/metadata/name',
      '/metadata/labels/app.kubernetes.io/version',
      '/spec/template/spec/containers/0/name',
    ]);
    const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: '1web' }, spec: { selector: { a: 'b' } } };
    expect(schemas.validate(service).map((p) => p.path)).toEqual(['/metadata/name', '/spec/ports']);
  });
});
