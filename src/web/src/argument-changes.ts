/** Arguments a person never edits by hand: the plan's hash is the system's, not a value. */
const NOT_VALUES = new Set(['planHash']);

function flatten(value: unknown, prefix: string, out: Map<string, unknown>): void {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
      if (!prefix && NOT_VALUES.has(key)) continue;
      flatten(inner, prefix ? `${prefix}.${key}` : key, out);
    }
  } else out.set(prefix, value);
}

/** Every scalar argument by its dotted path (`values.replicaCount`), without the plan hash. */
export function flatArguments(args: Readonly<Record<string, unknown>>): Map<string, unknown> {
  const out = new Map<string, unknown>();
  flatten(args, '', out);
  return out;
}

function shown(value: unknown): string {
  if (value === undefined) return '—';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * What an edit changed, as a person reads it: "replicaCount 6 → 4". The `values.` prefix of a
 * chart value is dropped; the values are what the person typed.
 */
export function argumentChanges(before: Readonly<Record<string, unknown>>, after: Readonly<Record<string, unknown>>): string[] {
  const from = flatArguments(before);
  const to = flatArguments(after);
  const changes: string[] = [];
  for (const path of new Set([...from.keys(), ...to.keys()])) {
    if (JSON.stringify(from.get(path)) === JSON.stringify(to.get(path))) continue;
    changes.push(`${path.replace(/^values\./, '')} ${shown(from.get(path))} → ${shown(to.get(path))}`);
  }
  return changes;
}

/** Sets a dotted path in a copy of `args`, keeping the type of the value it replaces where the text allows. */
export function withArgument(args: Readonly<Record<string, unknown>>, path: string, text: string): Record<string, unknown> {
  const copy = structuredClone(args) as Record<string, unknown>;
  const keys = path.split('.');
  let node = copy;
  for (const key of keys.slice(0, -1)) {
    if (typeof node[key] !== 'object' || node[key] === null) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  const last = keys.at(-1)!;
  const current = node[last];
  const trimmed = text.trim();
  if (typeof current === 'number' && trimmed !== '' && Number.isFinite(Number(trimmed))) node[last] = Number(trimmed);
  else if (typeof current === 'boolean' && (trimmed === 'true' || trimmed === 'false')) node[last] = trimmed === 'true';
  else node[last] = text;
  return copy;
}
