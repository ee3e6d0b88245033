import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preparedStatementsPool } from '../../src/core/store/prepared-statements.ts';
import { postgresTestStore, type TestStore, testDatabaseUrl } from '../../src/testing/index.ts';

interface Ledger {
  entries: { id: number; note: string };
}

/**
 * Issue 32: a transaction's `begin` (and the savepoints around a commit's rider) go to PostgreSQL in
 * one message with the statement after them. This counts the messages the store's pool sends — each
 * one a wait for the server's answer — and checks that the transactions mean what they meant.
 */
describe.skipIf(!testDatabaseUrl)('statements sent ahead of the next one (PostgreSQL)', () => {
  let created: TestStore;
  let raw: pg.Pool;
  let db: Kysely<Ledger>;
  const sent: string[] = [];

  beforeAll(async () => {
    created = await postgresTestStore.create();
    raw = new pg.Pool({ connectionString: created.url, max: 1 });
    // Records what each checked-out client is asked to send: one entry per exchange with the server.
    const counting = new Proxy(raw, {
      get(target, property, receiver) {
        if (property !== 'connect') return Reflect.get(target, property, receiver);
        return async () => {
          const client = await target.connect();
          const query = client.query.bind(client) as (...args: unknown[]) => unknown;
          return new Proxy(client, {
            get(inner, key, innerReceiver) {
              if (key !== 'query') return Reflect.get(inner, key, innerReceiver);
              return (first: unknown, ...rest: unknown[]) => {
                sent.push(typeof first === 'string' ? first : ((first as { text?: string }).text ?? 'submittable'));
                return query(first, ...rest);
              };
            },
          });
        };
      },
    });
    db = new Kysely<Ledger>({ dialect: new PostgresDialect({ pool: preparedStatementsPool(counting) }) });
    await sql`create table entries (id integer primary key, note text not null)`.execute(db);
  });

  afterAll(async () => {
    await db?.destroy();
    await created?.dispose();
  });

  const insert = (trx: Kysely<Ledger>, id: number, note = `entry ${id}`) =>
    trx.insertInto('entries').values({ id, note }).returning(['id', 'note']).executeTakeFirstOrThrow();

  it('a transaction of one statement is two exchanges with the server, not three, and returns the statement’s rows', async () => {
    await db.transaction().execute((trx) => insert(trx, 1)); // the insert's first use parses it on this connection
    sent.length = 0;
    const row = await db.transaction().execute((trx) => insert(trx, 2));
    expect(row).toEqual({ id: 2, note: 'entry 2' });
    expect(sent).toHaveLength(2);
    expect(sent[1]).toBe('commit');
  });

  it('the statement sent with `begin` runs inside the transaction: a rollback takes it back', async () => {
    await expect(
      db.transaction().execute(async (trx) => {
        await insert(trx, 3);
        throw new Error('abandon');
      }),
    ).rejects.toThrow('abandon');
    const rows = await db.selectFrom('entries').select('id').where('id', '=', 3).execute();
    expect(rows).toEqual([]);
  });

  it('an error in the statement sent with `begin` fails it with the server’s code, rolls back, and leaves the connection usable', async () => {
    const failed = await db
      .transaction()
      .execute((trx) => insert(trx, 1, 'a second entry 1'))
      .catch((error: unknown) => error);
    expect((failed as { code?: string }).code).toBe('23505');
    const row = await db.transaction().execute((trx) => insert(trx, 4));
    expect(row.id).toBe(4);
    const notes = await db.selectFrom('entries').select('note').where('id', '=', 1).execute();
    expect(notes).toEqual([{ note: 'entry 1' }]);
  });

  it('a savepoint held until the next statement still bounds what a rollback to it undoes', async () => {
    sent.length = 0;
    await db.transaction().execute(async (trx) => {
      await insert(trx, 5);
      await sql`savepoint rider`.execute(trx);
      await expect(insert(trx, 5, 'clash')).rejects.toMatchObject({ code: '23505' });
      await sql`rollback to savepoint rider`.execute(trx);
      await sql`savepoint rider`.execute(trx);
      await insert(trx, 6);
      await sql`release savepoint rider`.execute(trx);
    });
    const exchanges = [...sent];
    const ids = await db.selectFrom('entries').select('id').where('id', 'in', [5, 6]).orderBy('id').execute();
    expect(ids).toEqual([{ id: 5 }, { id: 6 }]);
    // begin+insert, savepoint+insert (fails), rollback to savepoint, savepoint+insert, release+commit
    expect(exchanges).toHaveLength(5);
    expect(exchanges.at(-1)).toBe('release savepoint rider; commit');
  });
});
