import { parseAllDocuments } from 'yaml';
import type { LoadedChart } from '../../charts/load-chart.ts';
import type { RenderRequest } from '../backend.ts';
import type { ReleaseHook, RenderedRelease } from '../types.ts';

/**
 * `group/version` and `group/version/Kind` of every version the chart's own `crds/` serve: what
 * `.Capabilities.APIVersions.Has` would find on the cluster once Helm has installed them.
 */
export function crdApiVersions(chart: LoadedChart): string[] {
  const found = new Set<string>();
  for (const file of chart.crds) {
    for (const document of parseAllDocuments(file.content, { uniqueKeys: false })) {
      const crd = document.toJS() as {
        kind?: unknown;
        spec?: { group?: unknown; names?: { kind?: unknown }; versions?: Array<{ name?: unknown; served?: unknown }> };
      } | null;
      if (crd?.kind !== 'CustomResourceDefinition' || typeof crd.spec?.group !== 'string') continue;
      for (const version of crd.spec.versions ?? []) {
        if (version.served === false || typeof version.name !== 'string') continue;
        found.add(`${crd.spec.group}/${version.name}`);
        if (typeof crd.spec.names?.kind === 'string') found.add(`${crd.spec.group}/${version.name}/${crd.spec.names.kind}`);
      }
    }
  }
  return [...found].sort();
}

/**
 * `helm template`: Helm 3's only render that never maps objects against the cluster (v3
 * `pkg/action/install.go`: the fake KubeClient is swapped in for ClientOnly alone), so the one way
 * to plan a first install whose templates hold custom resources of the chart's own CRDs (issue 30
 * N2). The cluster's version and the CRDs' API versions stand in for the live capabilities.
 */
export function templateArgs(request: RenderRequest, valuesFile: string, kubeVersion: string | undefined): string[] {
  return [
    'template',
    request.release,
    request.chartArchive,
    '--namespace',
    request.namespace,
    '--values',
    valuesFile,
    ...(kubeVersion ? ['--kube-version', kubeVersion] : []),
    ...crdApiVersions(request.chart).flatMap((apiVersion) => ['--api-versions', apiVersion]),
  ];
}

/**
 * Splits `helm template`'s stream (`---\n# Source: PATH\n…` per object, the hooks after the
 * manifest) the way a dry run's release keeps them apart: objects with a `helm.sh/hook` annotation
 * are hooks, the rest is the manifest.
 */
export function parseTemplateOutput(output: string): RenderedRelease {
  const manifest: string[] = [];
  const hooks: ReleaseHook[] = [];
  for (const chunk of output.split(/^---\s*$/m)) {
    if (!chunk.trim()) continue;
    const [document] = parseAllDocuments(chunk, { uniqueKeys: false });
    const object = document?.toJS() as {
      kind?: unknown;
      metadata?: { name?: unknown; generateName?: unknown; annotations?: Record<string, unknown> };
    } | null;
    if (!object || typeof object !== 'object') continue;
    const events = String(object.metadata?.annotations?.['helm.sh/hook'] ?? '')
      .split(',')
      .map((event) => event.trim())
      .filter(Boolean);
    if (events.length === 0) {
      manifest.push(`---${chunk.replace(/\s+$/, '')}`);
      continue;
    }
    const name = String(object.metadata?.name ?? object.metadata?.generateName ?? '');
    hooks.push({ key: `${String(object.kind ?? '')}/${name}`, events, manifest: chunk.replace(/^\s*# Source: .*$/m, '').trim() });
  }
  return { manifest: manifest.length ? `${manifest.join('\n')}\n` : '', hooks, clientSide: true, renderedWith: 'helm template' };
}
