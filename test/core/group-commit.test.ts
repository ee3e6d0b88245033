import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import {
  observeTransactions,
  StaleWriteError,
  type StoreMigration,
  UnitOfWork,
  type WriteTransaction,
} from '../../src/core/store/index.ts';
import { type TestStore, testStoreFactories } from '../../src/testing/index.ts';

// Issue 24: units of work that arrive while every commit slot is busy share one transaction (one
// commit, one WAL flush). Counted, not timed: fewer transactions than units, every unit's rows
// stored, and one unit's failure never another's.
const probeTable: StoreMigration = {
  name: 'test-group-commit-probe',
  async up(db) {
    await db.schema
      .createTable('group_commit_probe')
      .ifNotExists()
      .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
      .execute();
  },
};

function unitWriting(id: string, fail?: Error): UnitOfWork {
  const uow = new UnitOfWork();
  uow.write(async (trx) => {
    await sql`insert into group_commit_probe (id) values (${id})`.execute(trx);
  });
  if (fail)
    uow.write(async () => {
      throw fail;
    });
  return uow;
}

describe.each(testStoreFactories())('group commit ($dialect)', (factory) => {
  let created: TestStore | undefined;
  afterEach(async () => {
    observeTransactions(undefined);
    await created?.dispose();
    created = undefined;
  });

  async function storedIds(): Promise<string[]> {
    const rows = await sql<{ id: string }>`select id from group_commit_probe order by id`.execute(created!.store.db);
    return rows.rows.map((row) => row.id);
  }

  it('commits units that arrive together in fewer transactions, with every row stored', async () => {
    created = await factory.create([probeTable]);
    let transactions = 0;
    observeTransactions({
      transaction: (_ms, _retries, store) => {
        if (store === created!.store) transactions += 1;
      },
    });
    const ids = Array.from({ length: 60 }, (_, index) => `unit-${String(index).padStart(2, '0')}`);
    await Promise.all(ids.map((id) => unitWriting(id).commit(created!.store)));
    expect(await storedIds()).toEqual(ids);
    expect(transactions).toBeLessThan(ids.length);
  });

  it('units that arrive in one turn of the event loop while a commit slot is free commit in one transaction (PostgreSQL)', async () => {
    created = await factory.create([probeTable]);
    let transactions = 0;
    observeTransactions({
      transaction: (_ms, _retries, store) => {
        if (store === created!.store) transactions += 1;
      },
    });
    const ids = Array.from({ length: 8 }, (_, index) => `unit-${index}`);
    await Promise.all(ids.map((id) => unitWriting(id).commit(created!.store)));
    expect(await storedIds()).toEqual(ids);
    // Before, the first two started alone (two free slots) and the other six shared a third; SQLite
    // has one writer and commits as it did (the first alone, then the rest).
    expect(transactions).toBe(created.store.dialect === 'postgres' ? 1 : 2);
  });

  it("rows shared by units committed together are written by one statement per group, after each unit's own writes", async () => {
    created = await factory.create([probeTable]);
    let statements = 0;
    const writeAll = async (trx: WriteTransaction, ids: readonly string[]) => {
      statements += 1;
      await sql`insert into group_commit_probe (id) values ${sql.join(ids.map((id) => sql`(${id})`))}`.execute(trx);
    };
    const ids = Array.from({ length: 40 }, (_, index) => `shared-${String(index).padStart(2, '0')}`);
    await Promise.all(
      ids.map((id) => {
        const uow = new UnitOfWork();
        uow.share('probe', id, writeAll);
        return uow.commit(created!.store);
      }),
    );
    expect(await storedIds()).toEqual(ids);
    expect(statements).toBeLessThan(ids.length);
  });

  it("batches shared first run before the other shared batches of the group, after every unit's own writes", async () => {
    created = await factory.create([probeTable]);
    const order: string[] = [];
    await Promise.all(
      Array.from({ length: 20 }, (_, index) => {
        const uow = new UnitOfWork();
        uow.write(async () => {
          order.push('write');
        });
        uow.share('later', index, async () => {
          order.push('shared');
        });
        uow.shareFirst('check', index, async () => {
          order.push('first');
        });
        return uow.commit(created!.store);
      }),
    );
    // Per transaction: the units' own writes, then the first batch, then the others.
    const transactions = order.join(' ').split(/(?<=shared) (?=write)/);
    for (const transaction of transactions) expect(transaction).toMatch(/^(write )+first shared$/);
    expect(transactions.length).toBeLessThan(20);
  });

  it("a unit that fails in a group fails alone: the others' rows are stored, its own are not", async () => {
    created = await factory.create([probeTable]);
    const ids = Array.from({ length: 40 }, (_, index) => `unit-${String(index).padStart(2, '0')}`);
    const stale = new StaleWriteError('sessions', 'unit-13');
    const outcomes = await Promise.allSettled(
      ids.map((id) => unitWriting(id, id === 'unit-13' ? stale : undefined).commit(created!.store)),
    );
    expect(outcomes.filter((outcome) => outcome.status === 'rejected').map((outcome) => (outcome as PromiseRejectedResult).reason)).toEqual(
      [stale],
    );
    expect(await storedIds()).toEqual(ids.filter((id) => id !== 'unit-13'));
  });
});
