import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { sqlFailed } from './errors.ts';

function caught(run: () => void): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('it did not fail');
}

describe('SQL_FAILED from a driver error', () => {
  it('carries busy: true when another writer holds the SQLite database, read from the error code', () => {
    const dir = mkdtempSync(join(tmpdir(), 'opsgate-sandbox-busy-'));
    const holder = new DatabaseSync(join(dir, 'shop.db'));
    const other = new DatabaseSync(join(dir, 'shop.db'), { timeout: 0 });
    try {
      holder.exec('BEGIN IMMEDIATE');
      const busy = sqlFailed(caught(() => other.exec('BEGIN IMMEDIATE')));
      expect(busy).toMatchObject({ code: 'SQL_FAILED', fields: { detail: 'database is locked', busy: true } });
      const syntax = sqlFailed(caught(() => other.exec('SELEC 1')));
      expect(syntax.fields.busy).toBeUndefined();
    } finally {
      holder.close();
      other.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('carries busy: true for PostgreSQL lock_not_available, and not for a message that only reads like it', () => {
    expect(sqlFailed(Object.assign(new Error('could not obtain lock'), { code: '55P03' })).fields.busy).toBe(true);
    expect(sqlFailed(new Error('database is locked')).fields.busy).toBeUndefined();
  });
});
