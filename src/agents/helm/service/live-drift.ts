import type { ManifestResource } from '../charts/render-chart.ts';

/** One field the release sets whose live value differs (someone ran `kubectl edit`, an HPA scaled). */
interface DriftChange {
  /** Dotted path with list indexes: `spec.template.spec.containers[0].image`. */
  readonly path: string;
  readonly release: unknown;
  /** `undefined` when the live object lacks the field. */
  readonly live: unknown;
}

/**
 * The running release's objects compared with the cluster: what an upgrade will overwrite (Helm 3's
 * three-way merge resets drifted fields the chart sets) or collide with (Helm 4's server-side apply
 * refuses fields another manager now owns, unless forced). Shown in the plan, not bound by its
 * hash: the live state moves without anyone's approval, and binding it would make every plan of a
 * scaling workload stale.
 */
export interface LiveDrift {
  readonly checked: number;
  readonly drifted: ReadonlyArray<{ readonly object: string; readonly changes: readonly DriftChange[] }>;
  /** Objects of the release that are not on the cluster any more. */
  readonly missing: readonly string[];
  /** Objects not read live, and why (Secrets: their data would pass through opsgate). */
  readonly skipped: readonly string[];
  /** Set when the live objects could not be read at all (no right to read a kind, a kind the cluster no longer serves). */
  readonly unread?: string;
}

/** A live object to look up: kind, name and the namespace it lives in (the release's when it names none). */
export interface LiveRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace: string;
}

/** Per object, at most this many changes are listed (the rest are counted). */
const MAX_CHANGES = 20;

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const QUANTITY = /^([+-]?\d+(?:\.\d+)?)(m|k|Ki|Mi|Gi|Ti|Pi|Ei|M|G|T|P|E|e\d+)?$/;
const FACTORS: Record<string, number> = {
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** A Kubernetes quantity's value (`500m`, `1Gi`, `1e3`): the API server stores quantities in canonical form, so `1000m` comes back as `1`. */
function quantity(value: unknown): number | undefined {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value : undefined;
  const match = text === undefined ? null : QUANTITY.exec(text);
  if (!match) return undefined;
  const suffix = match[2] ?? '';
  const factor = suffix.startsWith('e') ? 10 ** Number(suffix.slice(1)) : (FACTORS[suffix] ?? 1);
  return Number(match[1]) * factor;
}

function sameLeaf(declared: unknown, live: unknown, path: string): boolean {
  if (declared === live) return true;
  // Numbers and strings the API server converts (int-or-string ports, canonical quantities).
  if (/resources\.(limits|requests)\./.test(path) || /\.(storage|cpu|memory)$/.test(path)) {
    const [a, b] = [quantity(declared), quantity(live)];
    if (a !== undefined && b !== undefined) return Math.abs(a - b) <= Math.abs(a) * 1e-12;
  }
  return (typeof declared === 'number' || typeof declared === 'string') && String(declared) === String(live);
}

/** Every field the release declares whose live value differs; fields only the cluster added (defaults, status) are not drift. */
function declaredDifferences(declared: unknown, live: unknown, path: string, out: DriftChange[]): void {
  if (isMap(declared)) {
    if (!isMap(live)) {
      out.push({ path, release: declared, live });
      return;
    }
    for (const [key, value] of Object.entries(declared)) {
      if (value === null) continue;
      declaredDifferences(value, live[key], path ? `${path}.${key}` : key, out);
    }
    return;
  }
  if (Array.isArray(declared)) {
    if (!Array.isArray(live)) {
      out.push({ path, release: declared, live });
      return;
    }
    if (live.length < declared.length) {
      out.push({ path, release: declared, live });
      return;
    }
    for (const [index, item] of declared.entries()) declaredDifferences(item, live[index], `${path}[${index}]`, out);
    return;
  }
  if (!sameLeaf(declared, live, path)) out.push({ path, release: declared, live });
}

/** The refs to read for a release's manifest objects (Secrets are never read). */
export function liveRefs(resources: readonly ManifestResource[], releaseNamespace: string): LiveRef[] {
  return resources
    .filter((resource) => resource.kind !== 'Secret')
    .map((resource) => ({
      apiVersion: String(resource.object.apiVersion ?? ''),
      kind: resource.kind,
      name: resource.name,
      namespace: String((resource.object.metadata as Record<string, unknown> | undefined)?.namespace ?? releaseNamespace),
    }));
}

/** Compares the release's stored objects with what the cluster holds now. */
export function compareLive(
  resources: readonly ManifestResource[],
  live: ReadonlyArray<Record<string, unknown>>,
  releaseNamespace: string,
): LiveDrift {
  const drifted: Array<{ object: string; changes: DriftChange[] }> = [];
  const missing: string[] = [];
  const skipped: string[] = [];
  let checked = 0;
  for (const resource of resources) {
    if (resource.kind === 'Secret') {
      skipped.push(`${resource.key} (a Secret: its data is not read)`);
      continue;
    }
    const namespace = String((resource.object.metadata as Record<string, unknown> | undefined)?.namespace ?? releaseNamespace);
    const found = live.find((object) => {
      const metadata = (object.metadata ?? {}) as Record<string, unknown>;
      return object.kind === resource.kind && metadata.name === resource.name && (metadata.namespace ?? namespace) === namespace;
    });
    checked++;
    if (!found) {
      missing.push(resource.key);
      continue;
    }
    const changes: DriftChange[] = [];
    const { metadata, ...declared } = resource.object;
    // Of the metadata only labels and annotations are the chart's; the server adds the rest.
    const declaredMetadata = isMap(metadata)
      ? Object.fromEntries(
          Object.entries({ labels: metadata.labels, annotations: metadata.annotations }).filter(([, value]) => value !== undefined),
        )
      : {};
    declaredDifferences({ ...declared, metadata: declaredMetadata }, found, '', changes);
    if (changes.length > 0)
      drifted.push({
        object: resource.key,
        changes:
          changes.length > MAX_CHANGES
            ? [...changes.slice(0, MAX_CHANGES), { path: `(${changes.length - MAX_CHANGES} more)`, release: '', live: '' }]
            : changes,
      });
  }
  return { checked, drifted, missing, skipped };
}
