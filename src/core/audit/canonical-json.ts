/**
 * JSON with sorted object keys, so that equal values always hash the same. Built by appending to
 * one string rather than through arrays of entries: every audit event, journal MAC and argument
 * hash goes through here, several times per round trip (issue 32). What it returns for any value
 * is fixed (stored hashes depend on it; canonical-json.test.ts holds it to the first definition).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) {
    let out = '[';
    for (let index = 0; index < value.length; index += 1) {
      if (index > 0) out += ',';
      // A hole stays empty, as `Array.prototype.map` and `join` leave it.
      if (index in value) out += canonicalJson(value[index] ?? null);
    }
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  let out = '{';
  for (const key of Object.keys(record).sort()) {
    const field = record[key];
    if (field === undefined) continue;
    if (out.length > 1) out += ',';
    out += `${JSON.stringify(key)}:${canonicalJson(field)}`;
  }
  return `${out}}`;
}
