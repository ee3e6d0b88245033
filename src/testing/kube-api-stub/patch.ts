/**
 * The patch types the stub applies: JSON merge patch (RFC 7386), an approximation of strategic
 * merge patch (lists of objects with a `name` are merged by name, `$setElementOrder/…` orders them,
 * `$patch: delete` removes; other directives are dropped), JSON patch (add, replace, remove) and
 * server-side apply (merged like a merge patch, without field ownership or conflicts).
 */
type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

export function mergePatch(target: unknown, patch: unknown, strategic = false): unknown {
  if (!isObject(patch)) return patch;
  const result: Json = isObject(target) ? { ...target } : {};
  const orders: Record<string, unknown[]> = {};
  for (const [key, value] of Object.entries(patch)) {
    if (strategic && key.startsWith('$setElementOrder/')) orders[key.slice('$setElementOrder/'.length)] = value as unknown[];
    else if (strategic && key.startsWith('$')) continue;
    else if (value === null) delete result[key];
    else if (strategic && Array.isArray(value) && Array.isArray(result[key]) && value.every((item) => isObject(item) && 'name' in item))
      result[key] = mergeByName(result[key] as Json[], value as Json[]);
    else result[key] = isObject(value) ? mergePatch(result[key], value, strategic) : value;
  }
  for (const [key, order] of Object.entries(orders)) {
    const items = Array.isArray(result[key]) ? (result[key] as Json[]) : [];
    const names = order.map((entry) => (isObject(entry) ? entry.name : entry));
    result[key] = [...items].sort((a, b) => names.indexOf(a.name) - names.indexOf(b.name));
  }
  return result;
}

function mergeByName(current: Json[], patch: Json[]): Json[] {
  const merged = current.map((item) => ({ ...item }));
  for (const change of patch) {
    const at = merged.findIndex((item) => item.name === change.name);
    if (change.$patch === 'delete') {
      if (at >= 0) merged.splice(at, 1);
    } else if (at >= 0) merged[at] = mergePatch(merged[at], change, true) as Json;
    else merged.push(mergePatch({}, change, true) as Json);
  }
  return merged;
}

export function jsonPatch(target: unknown, operations: ReadonlyArray<{ op: string; path: string; value?: unknown }>): unknown {
  const document = structuredClone(target) as Json;
  for (const { op, path, value } of operations) {
    const segments = path
      .split('/')
      .slice(1)
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    const last = segments.pop();
    if (last === undefined) continue;
    let parent: Json | unknown[] = document;
    for (const segment of segments) {
      const next: unknown = Array.isArray(parent) ? parent[Number(segment)] : parent[segment];
      if (typeof next !== 'object' || next === null) {
        if (op === 'remove') break;
        (parent as Json)[segment] = {};
      }
      parent = (Array.isArray(parent) ? parent[Number(segment)] : parent[segment]) as Json | unknown[];
    }
    if (Array.isArray(parent)) {
      const index = last === '-' ? parent.length : Number(last);
      if (op === 'add') parent.splice(index, 0, value);
      else if (op === 'replace') parent[index] = value;
      else if (op === 'remove') parent.splice(index, 1);
    } else if (op === 'add' || op === 'replace') parent[last] = value;
    else if (op === 'remove') delete parent[last];
  }
  return document;
}
