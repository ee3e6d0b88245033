import type { Values } from './merge-values.ts';

export interface ValueChange {
  /** Dotted path, e.g. `image.tag`. */
  readonly path: string;
  readonly change: 'added' | 'changed' | 'removed';
  readonly current?: unknown;
  readonly proposed?: unknown;
}

function isMap(value: unknown): value is Values {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Leaf-by-leaf difference between current and proposed values (gate 1 on upgrade). */
export function diffValues(current: Values, proposed: Values, prefix = ''): ValueChange[] {
  const changes: ValueChange[] = [];
  const keys = [...new Set([...Object.keys(current), ...Object.keys(proposed)])].sort();
  for (const key of keys) {
    const path = prefix ? `${prefix}.${key}` : key;
    const before = current[key];
    const after = proposed[key];
    if (isMap(before) && isMap(after)) changes.push(...diffValues(before, after, path));
    else if (!(key in proposed)) changes.push({ path, change: 'removed', current: before });
    else if (!(key in current)) changes.push({ path, change: 'added', proposed: after });
    else if (JSON.stringify(before) !== JSON.stringify(after)) changes.push({ path, change: 'changed', current: before, proposed: after });
  }
  return changes;
}
