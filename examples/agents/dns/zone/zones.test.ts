import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openZones } from './zones.ts';

describe('dns zones in a folder', () => {
  const dirs: string[] = [];
  const fresh = () => {
    const dir = mkdtempSync(join(tmpdir(), 'opsgate-dns-zones-'));
    dirs.push(dir);
    return openZones(join(dir, 'zones'));
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('starts with example.com, sets a record and says what it was', () => {
    const zones = fresh();
    expect(zones.names()).toEqual(['example.com']);
    expect(zones.record('example.com', 'www', 'A')).toBe('192.0.2.10');
    expect(zones.set({ zone: 'example.com', name: 'www', type: 'A', value: '192.0.2.20' })).toEqual({
      before: '192.0.2.10',
      after: '192.0.2.20',
    });
    expect(zones.record('example.com', 'www', 'A')).toBe('192.0.2.20');
  });

  it('binds a digest to the record as it is: a change in between gives another digest', () => {
    const zones = fresh();
    const change = { zone: 'example.com', name: 'www', type: 'A', value: '192.0.2.30' } as const;
    const shown = zones.digest(change);
    zones.set({ ...change, value: '192.0.2.99' });
    expect(zones.digest(change)).not.toBe(shown);
  });

  it('refuses a zone it does not hold, naming the ones it does', () => {
    expect(() => fresh().record('../etc', 'www', 'A')).toThrow('There is no zone "../etc". Use one of: example.com.');
  });
});
