import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.ts';

/** The first definition, kept as the reference: hashes stored by earlier versions were made with it. */
function reference(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map((item) => reference(item === undefined ? null : item)).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${reference(v)}`).join(',')}}`;
}

describe('canonicalJson', () => {
  it('sorts keys by UTF-16 code unit, drops undefined fields, writes undefined items as null', () => {
    expect(canonicalJson({ b: 1, a: [undefined, 'x'], é: null, Z: undefined, '\u{1F600}': true, ﬀ: 2 })).toBe(
      '{"a":[null,"x"],"b":1,"é":null,"\u{1F600}":true,"ﬀ":2}',
    );
    expect(canonicalJson(undefined)).toBe('null');
  });

  it('keeps a sparse array’s holes empty, as the first definition did', () => {
    // biome-ignore lint/suspicious/noSparseArray: the hole is the point
    const sparse = [1, , 3];
    expect(canonicalJson(sparse)).toBe('[1,,3]');
  });

  it('returns what the first definition returned, for any JSON-like value', () => {
    const value = fc.letrec((tie) => ({
      leaf: fc.oneof(fc.string(), fc.double(), fc.integer(), fc.boolean(), fc.constant(null), fc.constant(undefined), fc.date()),
      tree: fc.oneof({ depthSize: 'small' }, tie('leaf'), tie('array'), tie('object')),
      array: fc.array(tie('tree'), { maxLength: 5 }),
      object: fc.dictionary(fc.string(), tie('tree'), { maxKeys: 6 }),
    })).tree;
    fc.assert(
      fc.property(value, (generated) => canonicalJson(generated) === reference(generated)),
      { numRuns: 2000 },
    );
  });
});
