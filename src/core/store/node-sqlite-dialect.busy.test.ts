import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqlite } from './node-sqlite-dialect.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

// Another connection holds the file's lock for a moment (as a second process or the checkpoint
// worker can while the store opens): the open must wait for it, not fail with "database is locked".
const HOLD_LOCK = `
const { DatabaseSync } = require('node:sqlite');
const { parentPort, workerData } = require('node:worker_threads');
const held = new DatabaseSync(workerData.path);
held.exec('PRAGMA locking_mode = EXCLUSIVE; BEGIN IMMEDIATE; INSERT INTO notes (body) VALUES (1); COMMIT;');
parentPort.postMessage('locked');
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, workerData.holdMs);
held.close();
`;

describe('opening a SQLite store while another connection holds its lock', () => {
  it('waits for the lock (busy timeout set before the first statement that needs it)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opsgate-sqlite-busy-'));
    dirs.push(dir);
    const path = join(dir, 'store.db');
    const setup = new DatabaseSync(path);
    setup.exec('PRAGMA journal_mode = WAL; CREATE TABLE notes (body INTEGER)');
    setup.close();

    const worker = new Worker(HOLD_LOCK, { eval: true, workerData: { path, holdMs: 300 } });
    await new Promise((resolve) => worker.once('message', resolve));
    const { database } = openSqlite(path);
    const rows = database.prepare('select count(*) as n from notes').all([]);
    database.close();
    await worker.terminate();
    expect(rows).toEqual([{ n: 1 }]);
  });
});
