import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from './open-store.ts';
import { executeByShape, insertRows } from './statement-shapes.ts';

describe('statements run by their shape', () => {
  const stores: Store[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });
  const memoryStore = async (statements: string[] = []) => {
    const store = await openStore({ sqlitePath: ':memory:', databaseUrl: '', onStatement: (text) => statements.push(text) });
    stores.push(store);
    return store;
  };
  const secret = (name: string, value: string) => ({ name, value, created_at: '2026-11-27T00:00:00.000Z' });

  it('builds and compiles a shape once, then runs its kept text with each call’s parameters', async () => {
    const store = await memoryStore();
    let builds = 0;
    const read = (names: string[]) =>
      executeByShape<{ name: string }>(store.db, `secrets named × ${names.length}`, names, () => {
        builds += 1;
        return store.db.selectFrom('secrets').select('name').where('name', 'in', names).orderBy('name');
      });
    await insertRows(store.db, 'secrets', ['name', 'value', 'created_at'], [secret('a', '1'), secret('b', '2'), secret('c', '3')]);
    expect((await read(['a', 'b'])).rows.map((row) => row.name)).toEqual(['a', 'b']);
    expect((await read(['b', 'c'])).rows.map((row) => row.name)).toEqual(['b', 'c']);
    expect((await read(['c'])).rows.map((row) => row.name)).toEqual(['c']);
    expect(builds).toBe(2);
  });

  it('refuses a shape whose statement compiles to other parameters than those given', async () => {
    const store = await memoryStore();
    await expect(
      executeByShape(store.db, 'a shape that forgets a value', ['x'], () => sql`select ${'x'} as a, ${'y'} as b`),
    ).rejects.toThrow(/parameters given are not the ones it compiles to/);
  });

  it('inserts many rows with one statement, every listed column stored, the same as Kysely builds it', async () => {
    const statements: string[] = [];
    const store = await memoryStore(statements);
    const rows = [secret('x', 'with \u0000 and \u{1F600}'), { ...secret('y', ''), created_at: 'later' }];
    await insertRows(store.db, 'secrets', ['name', 'value', 'created_at'], rows);
    expect(await store.db.selectFrom('secrets').selectAll().orderBy('name').execute()).toEqual(rows);
    expect(statements.filter((text) => text.startsWith('insert into "secrets"'))).toEqual([
      store.db.insertInto('secrets').values(rows).compile().sql,
    ]);
  });

  it('refuses a row without a value for a listed column (null is a value, undefined is not)', async () => {
    const store = await memoryStore();
    const row = { name: 'z', value: undefined as unknown as string, created_at: 'now' };
    await expect(insertRows(store.db, 'secrets', ['name', 'value', 'created_at'], [row])).rejects.toThrow(/no value for value/);
  });
});
