import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openStore } from './open-store.ts';
import { observeTransactions, rideOnNextCommit, UnitOfWork } from './unit-of-work.ts';

async function withStore(work: (store: Awaited<ReturnType<typeof openStore>>) => Promise<void>): Promise<void> {
  const store = await openStore({ sqlitePath: ':memory:', databaseUrl: '' });
  await sql`create table rider_marks (note text not null)`.execute(store.db);
  try {
    await work(store);
  } finally {
    observeTransactions(undefined);
    await store.close();
  }
}

function unitWriting(note: string): UnitOfWork {
  const unit = new UnitOfWork();
  unit.write(async (trx) => {
    await sql`insert into rider_marks (note) values (${note})`.execute(trx);
  });
  return unit;
}

describe('work riding on the next commit of units of work (the audit sealer)', () => {
  it('runs inside that commit’s transaction, after its writes, and adds no transaction of its own', async () => {
    await withStore(async (store) => {
      let transactions = 0;
      observeTransactions({ transaction: () => (transactions += 1) });
      const settled: boolean[] = [];
      rideOnNextCommit(store, {
        run: async (trx) => {
          const { rows } = await sql<{ n: number }>`select count(*) as n from rider_marks`.execute(trx);
          await sql`insert into rider_marks (note) values (${`rider saw ${rows[0]!.n}`})`.execute(trx);
        },
        failed: () => settled.push(false),
        settle: (committed) => settled.push(committed),
      });
      await unitWriting('turn').commit(store);
      expect(transactions).toBe(1);
      expect(settled).toEqual([true]);
      const notes = await sql<{ note: string }>`select note from rider_marks order by rowid`.execute(store.db);
      expect(notes.rows.map((row) => row.note)).toEqual(['turn', 'rider saw 1']);
      // Taken once: the next commit carries nothing.
      await unitWriting('next').commit(store);
      expect((await sql<{ n: number }>`select count(*) as n from rider_marks`.execute(store.db)).rows[0]!.n).toBe(3);
    });
  });

  it('a rider that fails is rolled back alone: the commit it rode on is stored', async () => {
    await withStore(async (store) => {
      const calls: string[] = [];
      rideOnNextCommit(store, {
        run: async (trx) => {
          await sql`insert into rider_marks (note) values ('half done')`.execute(trx);
          throw new Error('the rider broke');
        },
        failed: () => calls.push('failed'),
        settle: (committed) => calls.push(`settled ${committed}`),
      });
      await unitWriting('turn').commit(store);
      expect(calls).toEqual(['failed', 'settled true']);
      const notes = await sql<{ note: string }>`select note from rider_marks`.execute(store.db);
      expect(notes.rows.map((row) => row.note)).toEqual(['turn']);
    });
  });

  it('a rider withdrawn before a commit took it never runs; a newer rider replaces one not yet taken', async () => {
    await withStore(async (store) => {
      const calls: string[] = [];
      const rider = (name: string) => ({
        run: async () => {
          calls.push(`${name} ran`);
        },
        failed: () => calls.push(`${name} failed`),
        settle: (committed: boolean) => calls.push(`${name} settled ${committed}`),
      });
      const withdraw = rideOnNextCommit(store, rider('first'));
      expect(withdraw()).toBe(true);
      expect(withdraw()).toBe(false);
      rideOnNextCommit(store, rider('second'));
      rideOnNextCommit(store, rider('third'));
      await unitWriting('turn').commit(store);
      expect(calls).toEqual(['second settled false', 'third ran', 'third settled true']);
    });
  });
});
