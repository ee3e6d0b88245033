import { setTimeout as sleep } from 'node:timers/promises';
import type { Transaction } from 'kysely';
import { CoreErrors } from '../errors/index.ts';
import type { Store } from './open-store.ts';
import type { CoreDatabase } from './schema.ts';

export type WriteTransaction = Transaction<CoreDatabase>;
/** One step of a unit of work; it may run again when the transaction is retried. */
export type Write = (trx: WriteTransaction) => Promise<void>;

/** Transient conflicts of concurrent writers: the transaction is retried, never surfaced. */
const TRANSIENT_CODES = new Set(['40001', '40P01', '23505', 'SQLITE_BUSY']);
/** Attempts before a transaction that keeps conflicting gives up. Default 12. */
const DEFAULT_ATTEMPTS = 12;

function isTransientConflict(error: unknown): boolean {
  const record = error as { code?: unknown; errcode?: unknown; message?: unknown };
  if (typeof record?.code === 'string' && TRANSIENT_CODES.has(record.code)) return true;
  return /UNIQUE constraint failed|database is locked/i.test(String(record?.message ?? ''));
}

/** Observes store transactions (for metrics). */
export interface TransactionObserver {
  transaction(durationMs: number, retries: number): void;
}

let observer: TransactionObserver | undefined;

/** Installs the process-wide observer of store transactions (metrics); undefined removes it. */
export function observeTransactions(next: TransactionObserver | undefined): void {
  observer = next;
}

/**
 * Runs `work` in one transaction. A transient conflict with another writer (a serialization
 * failure, a deadlock, two writers taking the same per-session number) rolls back and runs the
 * whole transaction again after a short random pause, so contention never reaches a person.
 */
export async function runInTransaction<T>(
  store: Store,
  work: (trx: WriteTransaction) => Promise<T>,
  attempts = DEFAULT_ATTEMPTS,
): Promise<T> {
  const started = performance.now();
  for (let attempt = 1; ; attempt += 1) {
    try {
      const result = await store.db.transaction().execute(work);
      observer?.transaction(performance.now() - started, attempt - 1);
      return result;
    } catch (error) {
      if (!isTransientConflict(error)) throw error;
      if (attempt >= attempts) throw CoreErrors.STORE_RETRY_EXHAUSTED({ attempts }, { cause: error });
      await sleep(Math.random() * Math.min(50, 2 ** attempt));
    }
  }
}

/**
 * The writes of one step of a turn, held in memory and made durable together in one
 * transaction at a checkpoint (before a side effect, at a pause, at the end of a turn). What must
 * only be seen once stored (live events) runs after the commit.
 */
export class UnitOfWork {
  readonly #writes: Write[] = [];
  readonly #afterCommit: Array<() => void> = [];
  readonly #batches = new Map<string, unknown[]>();

  /** Queues a write; it runs in the next commit's transaction, in the order queued. */
  write(write: Write): void {
    this.#writes.push(write);
  }

  /**
   * Queues a write that runs before every other write of the next commit: a check that decides
   * whether the rest may be written at all (a row version) runs first, so a writer that lost the
   * race stops at once instead of colliding with the winner's rows and retrying.
   */
  writeFirst(write: Write): void {
    this.#writes.unshift(write);
  }

  /**
   * Queues `item` in the batch named `key`: every item of that batch is written by one call of
   * `writeAll` (one multi-row statement instead of one each), at the place of the batch's first item.
   */
  batch<T>(key: string, item: T, writeAll: (trx: WriteTransaction, items: readonly T[]) => Promise<void>): void {
    const items = this.#batches.get(key);
    if (items) {
      items.push(item);
      return;
    }
    const batch: T[] = [item];
    this.#batches.set(key, batch as unknown[]);
    this.#writes.push((trx) => writeAll(trx, batch));
  }

  /** Runs after the next commit succeeds; dropped if it fails. */
  afterCommit(action: () => void): void {
    this.#afterCommit.push(action);
  }

  get isEmpty(): boolean {
    return this.#writes.length === 0 && this.#afterCommit.length === 0;
  }

  /** Makes every queued write durable in one transaction, then runs the after-commit actions. */
  async commit(store: Store): Promise<void> {
    const writes = this.#writes.splice(0);
    const after = this.#afterCommit.splice(0);
    this.#batches.clear();
    if (writes.length > 0) await groupCommitterOf(store).commit(writes);
    for (const action of after) action();
  }

  /** Forgets everything queued (after a failed commit, or when a turn is abandoned). */
  discard(): void {
    this.#writes.length = 0;
    this.#afterCommit.length = 0;
    this.#batches.clear();
  }
}

/** Units of work that share one transaction at most. */
const MAX_GROUP = 32;

interface GroupMember {
  readonly writes: readonly Write[];
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

async function runWrites(trx: WriteTransaction, writes: readonly Write[]): Promise<void> {
  for (const write of writes) await write(trx);
}

/**
 * Group commit: while every slot is busy with a transaction, the units of work that arrive wait
 * and then commit together in one transaction — one commit and one WAL flush for many sessions
 * instead of one each (PostgreSQL shares a flush only between commits that happen to overlap).
 * Nothing waits when a slot is free, so a lone request pays no delay. When any member of a group
 * fails (a stale session, a conflict), the group rolls back and each member commits on its own,
 * so one member's failure is never another's.
 */
class GroupCommitter {
  readonly #store: Store;
  readonly #slots: number;
  readonly #waiting: GroupMember[] = [];
  #busy = 0;

  constructor(store: Store, slots: number) {
    this.#store = store;
    this.#slots = slots;
  }

  commit(writes: readonly Write[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ writes, resolve, reject });
      this.#next();
    });
  }

  #next(): void {
    while (this.#busy < this.#slots && this.#waiting.length > 0) {
      const group = this.#waiting.splice(0, MAX_GROUP);
      this.#busy += 1;
      void this.#run(group).finally(() => {
        this.#busy -= 1;
        this.#next();
      });
    }
  }

  async #run(group: readonly GroupMember[]): Promise<void> {
    if (group.length > 1) {
      try {
        await runInTransaction(
          this.#store,
          async (trx) => {
            for (const member of group) await runWrites(trx, member.writes);
          },
          1,
        );
        for (const member of group) member.resolve();
        return;
      } catch {
        // Settled below, one by one.
      }
    }
    await Promise.all(
      group.map((member) => runInTransaction(this.#store, (trx) => runWrites(trx, member.writes)).then(member.resolve, member.reject)),
    );
  }
}

const committers = new WeakMap<Store, GroupCommitter>();

/** The store's group committer: on PostgreSQL half the pool commits at once (reads keep the rest), SQLite has one writer. */
function groupCommitterOf(store: Store): GroupCommitter {
  let committer = committers.get(store);
  if (!committer) {
    committer = new GroupCommitter(store, store.dialect === 'postgres' ? Math.max(1, Math.floor(store.poolSize / 2)) : 1);
    committers.set(store, committer);
  }
  return committer;
}

/** Thrown inside a write when what it expected to find stored has changed; rolls the unit back. */
export class StaleWriteError extends Error {
  readonly table: string;
  readonly key: string;
  constructor(table: string, key: string) {
    super(`${table} ${key} changed since it was read`);
    this.name = 'StaleWriteError';
    this.table = table;
    this.key = key;
  }
}
