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

  it('a count of days reads with its unit and a timestamp in the local format, not ISO (review A11)', () => {
    const at = '2026-11-27T05:00:00.000Z';
    expect(readableFields({ renewal_period: 14, grace_days: 1, expires_at: at, retries: 3 })).toEqual([
      ['renewal period', '14 days'],
      ['grace days', '1 day'],
      ['expires at', new Date(at).toLocaleString()],
      ['retries', '3'],
    ]);
  });

  it('nothing to show, or too much, leaves it to the raw JSON', () => {
    expect(readableFields({})).toBeUndefined();
    expect(readableFields(['a'])).toBeUndefined();
    expect(readableFields({ rows: Array.from({ length: 41 }, (_, i) => ({ id: i })) })).toBeUndefined();
  });
});
