import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UserRepository } from '../identity/users.ts';
import { openStore, type Store } from '../store/index.ts';
import { APPROVER_CANDIDATES_TTL_MS, cachedApproverCandidates } from './approver-candidates.ts';

describe('approver candidates, reused between changes', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function setUp() {
    const dir = mkdtempSync(join(tmpdir(), 'opsgate-candidates-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    let reads = 0;
    const store: Store = await openStore({
      sqlitePath: join(dir, 'opsgate.db'),
      databaseUrl: '',
      onStatement: (sql) => {
        if (/^select \* from "users" order by/i.test(sql)) reads += 1;
      },
    });
    cleanups.push(() => store.close());
    let clock = 1_000_000;
    return {
      store,
      users: new UserRepository(store),
      candidates: cachedApproverCandidates(store, () => clock),
      reads: () => reads,
      advance: (ms: number) => {
        clock += ms;
      },
    };
  }

  it('reads the accounts once while nothing changes', async () => {
    const t = await setUp();
    await t.users.create({ username: 'alice', roles: ['approver'] });
    expect(await t.candidates()).toEqual([{ username: 'alice', roles: ['approver'] }]);
    await t.candidates();
    await t.candidates();
    expect(t.reads()).toBe(1);
  });

  it('sees a change made in this process at once: a new account, new roles, a disabled account', async () => {
    const t = await setUp();
    await t.users.create({ username: 'alice', roles: ['approver'] });
    await t.candidates();
    await t.users.create({ username: 'bob', roles: ['user'] });
    expect((await t.candidates()).map((c) => c.username)).toEqual(['alice', 'bob']);
    await t.users.setRoles('bob', ['approver']);
    expect(await t.candidates()).toContainEqual({ username: 'bob', roles: ['approver'] });
    await t.users.disable('alice');
    expect((await t.candidates()).map((c) => c.username)).toEqual(['bob']);
  });

  it('sees a change made by another process once its lifetime ends', async () => {
    const t = await setUp();
    await t.users.create({ username: 'alice', roles: ['user'] });
    await t.candidates();
    // Another replica changes the row: this process's count of changes does not move.
    await t.store.db
      .updateTable('users')
      .set({ roles: JSON.stringify(['approver']) })
      .where('username', '=', 'alice')
      .execute();
    expect(await t.candidates()).toEqual([{ username: 'alice', roles: ['user'] }]);
    t.advance(APPROVER_CANDIDATES_TTL_MS);
    expect(await t.candidates()).toEqual([{ username: 'alice', roles: ['approver'] }]);
  });
});
