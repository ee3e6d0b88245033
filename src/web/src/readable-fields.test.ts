import { describe, expect, it } from 'vitest';
import { readableFields } from './readable-fields.ts';

describe('readable fields of a call’s arguments', () => {
  it('a flat record reads as before: one row per key, lists joined, null as a dash', () => {
    expect(readableFields({ file_path: '/srv/a.txt', tags: ['a', 'b'], mode: null, force: true })).toEqual([
      ['file path', '/srv/a.txt'],
      ['tags', 'a, b'],
      ['mode', '—'],
      ['force', 'true'],
    ]);
  });

  it('nested objects and lists of objects get a row per value (F12: create_entities)', () => {
    expect(readableFields({ entities: [{ name: 'web1', entityType: 'host', observations: ['restarted', 'patched'] }] })).toEqual([
      ['entities #1 › name', 'web1'],
      ['entities #1 › entityType', 'host'],
      ['entities #1 › observations', 'restarted, patched'],
    ]);
  });

  it('nothing to show, or too much, leaves it to the raw JSON', () => {
    expect(readableFields({})).toBeUndefined();
    expect(readableFields(['a'])).toBeUndefined();
    expect(readableFields({ rows: Array.from({ length: 41 }, (_, i) => ({ id: i })) })).toBeUndefined();
  });
});
