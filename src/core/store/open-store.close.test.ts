import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from './open-store.ts';

/** Files of `dir` this process holds open (its own connections and the checkpoint worker's). */
function openFilesIn(dir: string): string[] {
  const open: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(`${dir}/`)) open.push(target);
    } catch {
      // closed between the listing and the read
    }
  }
  return open;
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe.runIf(process.platform === 'linux')('closing a SQLite file store', () => {
  it('returns once the checkpoint worker has closed its connection too, so nothing touches the files afterwards', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opsgate-close-'));
    dirs.push(dir);
    const path = join(dir, 'opsgate.db');
    const store = await openStore({ sqlitePath: path, databaseUrl: '' });
    await sql`create table probe (n integer)`.execute(store.db);
    const mainConnectionFiles = openFilesIn(dir).filter((file) => file === path).length;
    // Commit until the worker has its own connection open (it starts at the 64th commit).
    for (let commit = 0; commit < 1000 && openFilesIn(dir).filter((file) => file === path).length <= mainConnectionFiles; commit += 1) {
      await sql`insert into probe (n) values (${commit})`.execute(store.db);
      await store.flush();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(openFilesIn(dir).filter((file) => file === path).length).toBeGreaterThan(mainConnectionFiles);

    await store.close();
    // Before, the worker closed its connection a moment later (or, when it was still starting,
    // opened the file after the store had closed it and made -wal and -shm again).
    expect(openFilesIn(dir)).toEqual([]);
    expect(readdirSync(dir)).toEqual(['opsgate.db']);
  });
});
