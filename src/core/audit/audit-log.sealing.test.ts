import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { describe, expect, it, vi } from 'vitest';
import { observeTransactions, openStore, type TransactionKind, UnitOfWork } from '../store/index.ts';
import { AuditKey } from './audit-key.ts';
import { AuditLog, observeCheckpoints } from './audit-log.ts';
import type { AuditCheckpoint } from './checkpoints.ts';

describe('the background sealer shared among replicas', () => {
  it('waits the seal delay times the live replicas (at least one), so replicas together seal about as often as one', async () => {
    const store = await openStore({ sqlitePath: ':memory:', databaseUrl: '' });
    const audit = new AuditLog(store, undefined, { sealDelayMs: 25 });
    expect(audit.sealDelayMs).toBe(25);
    audit.shareSealing(8);
    expect(audit.sealDelayMs).toBe(200);
    audit.shareSealing(2.7);
    expect(audit.sealDelayMs).toBe(50);
    audit.shareSealing(0);
    expect(audit.sealDelayMs).toBe(25);
    await audit.close();
    await store.close();
  });

  it('waits 100 ms by default: a seal is a transaction, and readers seal first anyway', async () => {
    const store = await openStore({ sqlitePath: ':memory:', databaseUrl: '' });
    const audit = new AuditLog(store);
    expect(audit.sealDelayMs).toBe(100);
    await audit.close();
    await store.close();
  });

  it('seals inside the next commit of a turn, not in a transaction of its own, while turns commit', async () => {
    const store = await openStore({ sqlitePath: ':memory:', databaseUrl: '' });
    const audit = new AuditLog(store, undefined, { sealDelayMs: 200 });
    const kinds: TransactionKind[] = [];
    observeTransactions({ transaction: (_ms, _retries, _store, kind) => kinds.push(kind) });
    try {
      const unit = new UnitOfWork();
      audit.record(unit, { sessionId: null, type: 'warning', actor: 'system', payload: { probe: 1 } });
      await unit.commit(store);
      // Turns keep committing (an empty write each), as they do under any load.
      for (let tries = 0; tries < 300; tries += 1) {
        const pending = await store.db.selectFrom('audit_pending').select('id').execute();
        if (pending.length === 0) break;
        const turn = new UnitOfWork();
        turn.write(async () => {});
        await turn.commit(store);
        await sleep(10);
      }
      expect(await store.db.selectFrom('audit_pending').select('id').execute()).toEqual([]);
      expect(await store.db.selectFrom('audit_events').select('type').execute()).toEqual([{ type: 'warning' }]);
      expect(kinds.filter((kind) => kind === 'audit-seal')).toEqual([]);
      expect((await audit.verify()).ok).toBe(true);
    } finally {
      observeTransactions(undefined);
      await audit.close();
      await store.close();
    }
  });
});

// The background sealer's timing on a clock the test moves (only setTimeout is faked; the store is
// real): what it rides on, when it stops trying, and how it backs off while seals fail.
describe('the background sealer, on a clock the test moves', () => {
  const SEAL_DELAY_MS = 100;

  async function sealerOnFakeClock(key?: AuditKey) {
    const store = await openStore({ sqlitePath: ':memory:', databaseUrl: '' });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const audit = new AuditLog(store, undefined, { sealDelayMs: SEAL_DELAY_MS, ...(key ? { key } : {}) });
    const kinds: TransactionKind[] = [];
    observeTransactions({ transaction: (_ms, _retries, _store, kind) => kinds.push(kind) });
    const count = async (table: 'audit_events' | 'audit_pending') =>
      Number(
        (
          await store.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const turn = async () => {
      const unit = new UnitOfWork();
      unit.write(async () => {});
      await unit.commit(store);
    };
    const dispose = async () => {
      observeTransactions(undefined);
      vi.useRealTimers();
      await audit.close();
      await store.close();
    };
    return { store, audit, kinds, count, turn, dispose };
  }

  it('rides a batch at a time on the turns that commit until the journal is empty, then stops trying', async () => {
    const { store, audit, kinds, count, turn, dispose } = await sealerOnFakeClock();
    try {
      const unit = new UnitOfWork();
      for (let n = 1; n <= 1_500; n += 1) audit.record(unit, { sessionId: null, type: 'warning', actor: 'system', payload: { n } });
      await unit.commit(store);
      kinds.length = 0;
      // After the seal delay the sealer waits for the next commit, which carries one batch (1,000 events).
      await vi.advanceTimersByTimeAsync(SEAL_DELAY_MS);
      await turn();
      expect([await count('audit_events'), await count('audit_pending')]).toEqual([1_000, 500]);
      // A full batch may have left more behind: it rides again on a later commit.
      await vi.advanceTimersByTimeAsync(SEAL_DELAY_MS);
      await turn();
      expect([await count('audit_events'), await count('audit_pending')]).toEqual([1_500, 0]);
      // Nothing left: no further attempt, not even a transaction of its own, however long it stays quiet.
      await vi.advanceTimersByTimeAsync(60_000);
      expect(kinds).toEqual(['checkpoint', 'checkpoint']);
    } finally {
      await dispose();
    }
  });

  it('neither the seal timer nor a ride waiting for the next commit keeps the process alive', async () => {
    const { store, audit, dispose } = await sealerOnFakeClock();
    // Wrapped by hand, not with vi.spyOn: after a spy on the faked setTimeout, timers of later files in
    // the same worker (vitest.config.ts `isolate: false`) never fired — cockatiel's retry delay hung the
    // helm error-recovery tests in CI.
    const fakeSetTimeout = globalThis.setTimeout;
    const made: NodeJS.Timeout[] = [];
    globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => {
      const timer = fakeSetTimeout(...args);
      made.push(timer);
      return timer;
    }) as typeof setTimeout;
    try {
      const unit = new UnitOfWork();
      audit.record(unit, { sessionId: null, type: 'warning', actor: 'system', payload: { n: 1 } });
      await unit.commit(store);
      // After the seal delay the sealer rides: it waits for the next commit, with a fallback timer.
      await vi.advanceTimersByTimeAsync(SEAL_DELAY_MS);
      expect(made.length).toBeGreaterThanOrEqual(2);
      expect(made.filter((timer) => timer.hasRef())).toEqual([]);
    } finally {
      globalThis.setTimeout = fakeSetTimeout;
      await dispose();
    }
  });

  it('a checkpoint asked for runs in a transaction named as a seal', async () => {
    const { store, audit, kinds, dispose } = await sealerOnFakeClock();
    try {
      const unit = new UnitOfWork();
      audit.record(unit, { sessionId: null, type: 'warning', actor: 'system', payload: { n: 1 } });
      await unit.commit(store);
      await audit.seal();
      kinds.length = 0;
      await audit.checkpoint();
      // Its seal of what is journaled, then its own transaction.
      expect(kinds).toEqual(['audit-seal', 'audit-seal']);
    } finally {
      await dispose();
    }
  });

  it('with no commit within the seal delay it seals on its own, every batch journaled, in transactions named as seals', async () => {
    const { store, audit, kinds, count, dispose } = await sealerOnFakeClock();
    try {
      const unit = new UnitOfWork();
      for (let n = 1; n <= 1_500; n += 1) audit.record(unit, { sessionId: null, type: 'warning', actor: 'system', payload: { n } });
      await unit.commit(store);
      kinds.length = 0;
      await vi.advanceTimersByTimeAsync(2 * SEAL_DELAY_MS);
      await vi.waitFor(async () => expect(await count('audit_pending')).toBe(0));
      expect(await count('audit_events')).toBe(1_500);
      expect(kinds).toEqual(['audit-seal', 'audit-seal']);
    } finally {
      await dispose();
    }
  });

  it('a commit that took the ride is waited for past the seal delay: no seal of its own meanwhile', async () => {
    const { audit, kinds, count, turn, dispose } = await sealerOnFakeClock();
    try {
      await audit.append({ type: 'warning', actor: 'system', payload: { n: 1 } });
      await vi.advanceTimersByTimeAsync(SEAL_DELAY_MS);
      kinds.length = 0;
      const committing = turn();
      // The ride's fallback comes due while that commit is still running.
      vi.advanceTimersByTime(SEAL_DELAY_MS);
      await committing;
      await vi.advanceTimersByTimeAsync(60_000);
      expect(await count('audit_pending')).toBe(0);
      expect(kinds).toEqual(['checkpoint']);
    } finally {
      await dispose();
    }
  });

  it('a commit that fails after the sealer rode on it publishes nothing; the sealer then seals and signs for real', async () => {
    const { store, audit, count, dispose } = await sealerOnFakeClock();
    const heard: AuditCheckpoint[] = [];
    const stop = observeCheckpoints(store, (checkpoint) => heard.push(checkpoint));
    try {
      // A deferred foreign key fails the commit itself, after every write and the rider ran.
      await sql`create table parents (id integer primary key)`.execute(store.db);
      await sql`create table children (parent integer references parents (id) deferrable initially deferred)`.execute(store.db);
      await audit.append({ type: 'warning', actor: 'system', payload: { n: 1 } });
      await vi.advanceTimersByTimeAsync(SEAL_DELAY_MS);
      const broken = new UnitOfWork();
      broken.write(async (trx) => {
        await sql`insert into children (parent) values (7)`.execute(trx);
      });
      await expect(broken.commit(store)).rejects.toThrow(/FOREIGN KEY/);
      await vi.waitFor(async () => expect(await count('audit_pending')).toBe(0));
      const stored = await store.db.selectFrom('audit_checkpoints').select(['seq', 'hash', 'signature']).execute();
      expect(heard.map(({ seq, hash, signature }) => ({ seq, hash, signature }))).toEqual(
        stored.map((row) => ({ seq: Number(row.seq), hash: row.hash, signature: row.signature })),
      );
      expect(heard).toHaveLength(1);
    } finally {
      stop();
      await dispose();
    }
  });

  it('a log closed while its sealer waits for a commit leaves nothing riding on the store’s commits', async () => {
    const { store, audit, count, turn, dispose } = await sealerOnFakeClock();
    const other = new AuditLog(store, undefined, { sealDelayMs: 3_600_000 });
    try {
      await audit.append({ type: 'warning', actor: 'system', payload: { n: 1 } });
      await vi.advanceTimersByTimeAsync(SEAL_DELAY_MS);
      await audit.close();
      expect(await count('audit_pending')).toBe(0);
      // Another log's event on the same store: the closed log's sealer must not chain it on this commit.
      const unit = new UnitOfWork();
      other.record(unit, { sessionId: null, type: 'warning', actor: 'system', payload: { n: 2 } });
      await unit.commit(store);
      await turn();
      await vi.advanceTimersByTimeAsync(60_000);
      expect(await count('audit_pending')).toBe(1);
    } finally {
      await other.close();
      await dispose();
    }
  });

  // Attempts while every seal fails: the first at the seal delay waits for a commit, and with none it
  // seals on its own at 200 ms; each failure doubles the wait from the seal delay, up to 5 s.
  const FAILING_ATTEMPTS_MS = [200, 400, 800, 1_600, 3_200, 6_400, 11_400];

  it.each(FAILING_ATTEMPTS_MS.slice(0, -1).map((failedAt, index) => [index + 1, failedAt, FAILING_ATTEMPTS_MS[index + 1]!]))(
    'after %i failed seal(s) (the last at %i ms) the next try comes at %i ms; once one works it rides on commits again',
    async (_failures, lastFailureMs, nextTryMs) => {
      const sealer = await sealerOnFakeClock(new AuditKey(randomBytes(32), 'this key'));
      const { store, audit, count } = sealer;
      // A checkpoint signed with another key makes every seal fail (AUDIT_KEY_MISMATCH) until it is gone.
      const other = new AuditLog(store, undefined, { key: new AuditKey(randomBytes(32), 'another key') });
      await other.append({ type: 'warning', actor: 'system', payload: { by: 'the other key' } });
      await other.close();
      try {
        await audit.append({ type: 'warning', actor: 'system', payload: { n: 1 } });
        await vi.advanceTimersByTimeAsync(lastFailureMs);
        expect(await count('audit_pending')).toBe(1);
        await store.db.deleteFrom('audit_checkpoints').execute();
        await vi.advanceTimersByTimeAsync(nextTryMs - lastFailureMs - 1);
        expect(await count('audit_pending')).toBe(1);
        await vi.advanceTimersByTimeAsync(1);
        expect(await count('audit_pending')).toBe(0);

        // Healthy again: the next event is sealed on the first turn's commit after the plain delay.
        sealer.kinds.length = 0;
        await audit.append({ type: 'warning', actor: 'system', payload: { n: 2 } });
        await vi.advanceTimersByTimeAsync(SEAL_DELAY_MS);
        await sealer.turn();
        expect(await count('audit_pending')).toBe(0);
        expect(sealer.kinds).toEqual(['checkpoint']);
      } finally {
        await sealer.dispose();
      }
    },
  );
});
