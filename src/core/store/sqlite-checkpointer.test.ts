import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openSqlite } from './node-sqlite-dialect.ts';
import { BACKSTOP_CHECKPOINT_PAGES } from './sqlite-checkpointer.ts';

const ROW_BYTES = 3000;
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function openFile() {
  const dir = mkdtempSync(join(tmpdir(), 'opsgate-checkpointer-'));
  dirs.push(dir);
  const path = join(dir, 'store.db');
  const { database } = openSqlite(path);
  database.prepare('create table rows (id integer primary key, body blob not null)').run([]);
  return { path, database };
}

describe('background WAL checkpoints (SQLite files)', () => {
  it('copies the log into the database file on a worker thread long before a commit would checkpoint itself', async () => {
    const { path, database } = openFile();
    const body = new Uint8Array(ROW_BYTES).fill(7);
    // 128 commits of one ~1-page row: ~300 log pages, far below the commit's own threshold (and
    // below SQLite's default of 1,000), so only the background checkpointer moves rows into the file.
    for (let i = 0; i < 64; i += 1) {
      database.prepare('begin').run([]);
      database.prepare('insert into rows (body) values (?)').run([body]);
      database.prepare('commit').run([]);
    }
    for (let i = 0; i < 64; i += 1) {
      database.prepare('insert into rows (body) values (?)').run([body]);
      database.flush();
    }
    // The worker's answer arrives a moment after the file has grown.
    await vi.waitFor(
      () => {
        expect(statSync(path).size).toBeGreaterThan(128 * ROW_BYTES);
        expect(database.checkpointer?.checkpoints).toBeGreaterThan(0);
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(database.checkpointer?.started).toBe(true);
    expect(database.prepare('pragma wal_autocheckpoint').all([])).toEqual([{ wal_autocheckpoint: BACKSTOP_CHECKPOINT_PAGES }]);
    expect(database.prepare('select count(*) as rows from rows').all([])).toEqual([{ rows: 128 }]);
    // Rows no background checkpoint has copied yet are in the file alone once the store is closed.
    for (let i = 0; i < 5; i += 1) {
      database.prepare('insert into rows (body) values (?)').run([body]);
      database.flush();
    }
    database.close();
    const copy = join(dirname(path), 'copy.db');
    copyFileSync(path, copy);
    const reopened = new DatabaseSync(copy, { readOnly: true });
    expect(reopened.prepare('select count(*) as rows from rows').get()).toEqual({ rows: 133 });
    reopened.close();
  });

  it('starts no worker for a store that commits a few times, nor for :memory:', () => {
    const { database } = openFile();
    for (let i = 0; i < 10; i += 1) {
      database.prepare('insert into rows (body) values (?)').run([new Uint8Array(10)]);
      database.flush();
    }
    expect(database.checkpointer?.started).toBe(false);
    database.close();
    expect(openSqlite(':memory:').database.checkpointer).toBeUndefined();
  });
});
