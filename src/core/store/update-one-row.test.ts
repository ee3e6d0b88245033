import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from './open-store.ts';
import { updateOneRow } from './update-one-row.ts';

const statements: string[] = [];
const store = await openStore({ sqlitePath: ':memory:', databaseUrl: '', auditKey: '', onStatement: (sql) => statements.push(sql) });
afterAll(() => store.close());
const at = '2026-11-27T13:00:00.000Z';

async function insertSession(id: string): Promise<void> {
  await store.db
    .insertInto('sessions')
    .values({
      id,
      user_id: 1,
      agent: 'ledger',
      pillar: 'ledger',
      route: 'standard',
      phase: 'standard',
      role: 'user',
      title: 't',
      status: 'idle',
      steps: 0,
      state: '{}',
      interrupt: null,
      version: 1,
      runner: null,
      created_at: at,
      updated_at: at,
    })
    .execute();
}

describe('updateOneRow', () => {
  it('changes the row that still holds every condition, bumps its version, and says so', async () => {
    await insertSession('one');
    const id = await updateOneRow(
      store.db,
      'sessions',
      [
        ['status', 'running'],
        ['steps', 2],
      ],
      [
        ['id', 'one'],
        ['version', 1],
      ],
      { bumpVersion: true },
    );
    expect(id).toBe(true);
    const row = await store.db
      .selectFrom('sessions')
      .select(['status', 'steps', 'version'])
      .where('id', '=', 'one')
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'running', steps: 2, version: 2 });
  });

  it('changes nothing and returns nothing when a condition no longer holds (the row moved on)', async () => {
    await insertSession('two');
    expect(
      await updateOneRow(
        store.db,
        'sessions',
        [['status', 'running']],
        [
          ['id', 'two'],
          ['version', 1],
        ],
        { bumpVersion: true },
      ),
    ).toBe(true);
    expect(
      await updateOneRow(
        store.db,
        'sessions',
        [['status', 'failed']],
        [
          ['id', 'two'],
          ['version', 1],
        ],
        { bumpVersion: true },
      ),
    ).toBe(false);
    const row = await store.db.selectFrom('sessions').select(['status', 'version']).where('id', '=', 'two').executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'running', version: 2 });
  });

  it('is one plain update by key (no `returning`), its text built once per table and columns', async () => {
    await insertSession('three');
    statements.length = 0;
    await updateOneRow(store.db, 'sessions', [['title', 'a']], [['id', 'three']]);
    await updateOneRow(store.db, 'sessions', [['title', 'b']], [['id', 'three']]);
    expect(statements).toEqual(['update "sessions" set "title" = ? where "id" = ?', 'update "sessions" set "title" = ? where "id" = ?']);
  });
});
