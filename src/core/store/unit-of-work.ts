import { setTimeout as sleep } from 'node:timers/promises';
import { CompiledQuery, type Transaction } from 'kysely';
import { CoreErrors } from '../errors/index.ts';
import type { Store } from './open-store.ts';
import { COMMIT_WITHOUT_FLUSH } from './prepared-statements.ts';
import type { CoreDatabase } from './schema.ts';
import { SlotBatcher } from './slot-batcher.ts';

export type WriteTransaction = Transaction<CoreDatabase>;
/** One step of a unit of work; it may run again when the transaction is retried. */
export type Write = (trx: WriteTransaction) => Promise<void>;

/** Transient conflicts of concurrent writers: the transaction is retried, never surfaced. */
const TRANSIENT_CODES = new Set(['40001', '40P01', '23505', 'SQLITE_BUSY']);
/** node:sqlite's `errcode` (extended result codes): busy or locked in any variant, a unique or primary-key clash. */
const SQLITE_BUSY = 5;
const SQLITE_LOCKED = 6;
const SQLITE_CONSTRAINT_CLASHES = new Set([1555, 2067]);
/** Attempts before a transaction that keeps conflicting gives up. Default 12. */
const DEFAULT_ATTEMPTS = 12;

/** Read from the driver's typed error fields, never from its message. */
export function isTransientConflict(error: unknown): boolean {
  const record = error as { code?: unknown; errcode?: unknown } | undefined;
  if (typeof record?.code === 'string' && TRANSIENT_CODES.has(record.code)) return true;
  if (typeof record?.errcode !== 'number') return false;
  const primary = record.errcode & 0xff;
  return primary === SQLITE_BUSY || primary === SQLITE_LOCKED || SQLITE_CONSTRAINT_CLASHES.has(record.errcode);
}

/** What a transaction was for: a turn's checkpoint(s), the audit sealer's work, or anything else. */
export type TransactionKind = 'checkpoint' | 'audit-seal' | 'other';

/** Observes store transactions (for metrics). */
export interface TransactionObserver {
  /** `store`: which store committed (one process may hold several); `kind`: what for. */
  transaction(durationMs: number, retries: number, store: Store, kind: TransactionKind): void;
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
  options: { readonly attempts?: number; readonly kind?: TransactionKind } = {},
): Promise<T> {
  const attempts = options.attempts ?? DEFAULT_ATTEMPTS;
  const started = performance.now();
  for (let attempt = 1; ; attempt += 1) {
    try {
      const result = await store.db.transaction().execute(work);
      observer?.transaction(performance.now() - started, attempt - 1, store, options.kind ?? 'other');
      return result;
    } catch (error) {
      if (!isTransientConflict(error)) throw error;
      if (attempt >= attempts) throw CoreErrors.STORE_RETRY_EXHAUSTED({ attempts }, { cause: error });
      await sleep(Math.random() * Math.min(50, 2 ** attempt));
    }
  }
}

/**
 * A batch whose items from every unit of work that commits in one transaction are written by one
 * statement: `writeAll` must depend on its items only (one unit's is called for all of them).
 */
interface SharedBatch {
  readonly items: unknown[];
  readonly writeAll: (trx: WriteTransaction, items: readonly unknown[]) => Promise<void>;
}

/** What one unit of work makes durable: its writes in order, then its shared batches (the `first` ones before the others). */
interface PendingUnit {
  /** Something irreversible follows the commit: it must be durable before it returns. */
  readonly effectFollows: boolean;
  readonly writes: readonly Write[];
  readonly sharedFirst: ReadonlyMap<string, SharedBatch>;
  readonly shared: ReadonlyMap<string, SharedBatch>;
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
  readonly #sharedFirst = new Map<string, SharedBatch>();
  readonly #shared = new Map<string, SharedBatch>();

  /** Queues a write; it runs in the next commit's transaction, in the order queued. */
  write(write: Write): void {
    this.#writes.push(write);
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

  /**
   * Queues `item` in the shared batch `key`, written after this unit's other writes together with
   * the items of every unit of work committed in the same transaction (group commit): one insert
   * for the journal rows of many sessions. For rows nothing else in the commit reads or refers to;
   * `writeAll` must depend on its items only.
   */
  share<T>(key: string, item: T, writeAll: (trx: WriteTransaction, items: readonly T[]) => Promise<void>): void {
    addShared(this.#shared, key, item, writeAll);
  }

  /**
   * Like `share`, but the batch runs before every other shared batch: a check that decides
   * whether the rest may be written at all (a row version) stops a writer that lost the race
   * before its rows collide with the winner's.
   */
  shareFirst<T>(key: string, item: T, writeAll: (trx: WriteTransaction, items: readonly T[]) => Promise<void>): void {
    addShared(this.#sharedFirst, key, item, writeAll);
  }

  /**
   * A new unit holding a copy of the shared batch `key` as queued so far: what must be stored even
   * when this unit is dropped (the audit of reads a turn ran before its checkpoint found the
   * session changed elsewhere). Empty when nothing is queued under `key`.
   */
  sharedPart(key: string): UnitOfWork {
    const part = new UnitOfWork();
    const batch = this.#shared.get(key);
    if (batch) part.#shared.set(key, { items: [...batch.items], writeAll: batch.writeAll });
    return part;
  }

  /** Runs after the next commit succeeds; dropped if it fails. */
  afterCommit(action: () => void): void {
    this.#afterCommit.push(action);
  }

  get isEmpty(): boolean {
    return this.#writes.length === 0 && this.#sharedFirst.size === 0 && this.#shared.size === 0 && this.#afterCommit.length === 0;
  }

  /**
   * Makes every queued write durable in one transaction, then runs the after-commit actions.
   * `effectFollows: false` says nothing irreversible follows (a session's start, a pause, the end of
   * a turn): with the store's `durableCommits: 'effects'`, PostgreSQL then acknowledges the commit
   * before flushing its WAL, and the next flushed commit (the one before any side effect, a signed
   * audit checkpoint) makes it durable, since WAL is flushed in order. Default: true.
   */
  async commit(store: Store, options: { readonly effectFollows?: boolean } = {}): Promise<void> {
    const unit: PendingUnit = {
      effectFollows: options.effectFollows ?? true,
      writes: this.#writes.splice(0),
      sharedFirst: new Map(this.#sharedFirst),
      shared: new Map(this.#shared),
    };
    const after = this.#afterCommit.splice(0);
    this.#batches.clear();
    this.#sharedFirst.clear();
    this.#shared.clear();
    if (unit.writes.length > 0 || unit.sharedFirst.size > 0 || unit.shared.size > 0) await groupCommitterOf(store).commit(unit);
    for (const action of after) action();
  }

  /** Forgets everything queued (after a failed commit, or when a turn is abandoned). */
  discard(): void {
    this.#writes.length = 0;
    this.#afterCommit.length = 0;
    this.#batches.clear();
    this.#sharedFirst.clear();
    this.#shared.clear();
  }
}

function addShared<T>(
  batches: Map<string, SharedBatch>,
  key: string,
  item: T,
  writeAll: (trx: WriteTransaction, items: readonly T[]) => Promise<void>,
): void {
  const batch = batches.get(key);
  if (batch) batch.items.push(item);
  else batches.set(key, { items: [item], writeAll: writeAll as SharedBatch['writeAll'] });
}

/** Units of work that share one transaction at most. */
const MAX_GROUP = 32;

interface GroupMember {
  readonly unit: PendingUnit;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Runs the units' writes in order, then each shared batch once with the items of every unit (the
 * `first` ones first). Unless one of them is followed by a side effect (or the store makes every
 * commit wait), a PostgreSQL transaction commits without waiting for its WAL flush.
 */
async function runUnits(store: Store, trx: WriteTransaction, units: readonly PendingUnit[]): Promise<void> {
  if (store.dialect === 'postgres' && store.durableCommits === 'effects' && units.every((unit) => !unit.effectFollows))
    await trx.executeQuery(CompiledQuery.raw(COMMIT_WITHOUT_FLUSH));
  const first = new Map<string, SharedBatch>();
  const shared = new Map<string, SharedBatch>();
  const merge = (into: Map<string, SharedBatch>, from: ReadonlyMap<string, SharedBatch>) => {
    for (const [key, batch] of from) {
      const merged = into.get(key);
      if (merged) merged.items.push(...batch.items);
      else into.set(key, { items: [...batch.items], writeAll: batch.writeAll });
    }
  };
  for (const unit of units) {
    for (const write of unit.writes) await write(trx);
    merge(first, unit.sharedFirst);
    merge(shared, unit.shared);
  }
  for (const batch of first.values()) await batch.writeAll(trx, batch.items);
  for (const batch of shared.values()) await batch.writeAll(trx, batch.items);
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
  readonly #batcher: SlotBatcher<GroupMember>;
  /** Rides on the next transaction this committer runs (`rideOnNextCommit`); undefined once taken or withdrawn. */
  rider: CommitRider | undefined;

  set slots(slots: number) {
    this.#batcher.slots = slots;
  }

  constructor(store: Store, slots: number) {
    this.#store = store;
    // PostgreSQL: the units of a group that just committed resume in one turn of the event loop and
    // commit again together, rather than the first alone and the rest after it (issue 32: 8
    // replicas at C=64 ran 1.43 transactions per round trip, 0.74 gathered). SQLite commits as before.
    this.#batcher = new SlotBatcher(slots, MAX_GROUP, (group) => this.#run(group), { gatherTurn: store.dialect === 'postgres' });
  }

  commit(unit: PendingUnit): Promise<void> {
    return new Promise((resolve, reject) => this.#batcher.add({ unit, resolve, reject }));
  }

  async #run(group: readonly GroupMember[]): Promise<void> {
    const rider = this.rider;
    this.rider = undefined;
    const withRider = (work: (trx: WriteTransaction) => Promise<void>) => async (trx: WriteTransaction) => {
      await work(trx);
      if (rider) await runRider(trx, rider);
    };
    if (group.length > 1) {
      try {
        await runInTransaction(
          this.#store,
          withRider((trx) =>
            runUnits(
              this.#store,
              trx,
              group.map((member) => member.unit),
            ),
          ),
          { attempts: 1, kind: 'checkpoint' },
        );
        rider?.settle(true);
        for (const member of group) member.resolve();
        return;
      } catch {
        // Settled below, one by one; the rider waits for another commit.
        rider?.settle(false);
      }
    }
    const alone = group.length === 1 ? rider : undefined;
    await Promise.all(
      group.map((member) =>
        runInTransaction(
          this.#store,
          (trx) =>
            alone ? withRider((unitTrx) => runUnits(this.#store, unitTrx, [member.unit]))(trx) : runUnits(this.#store, trx, [member.unit]),
          { kind: 'checkpoint' },
        ).then(
          () => {
            alone?.settle(true);
            member.resolve();
          },
          (error: unknown) => {
            alone?.settle(false);
            member.reject(error);
          },
        ),
      ),
    );
  }
}

/** The rider's work in a savepoint of the commit's transaction: when it fails, only its own work is rolled back. */
async function runRider(trx: WriteTransaction, rider: CommitRider): Promise<void> {
  await trx.executeQuery(CompiledQuery.raw('savepoint commit_rider'));
  try {
    await rider.run(trx);
    await trx.executeQuery(CompiledQuery.raw('release savepoint commit_rider'));
  } catch {
    await trx.executeQuery(CompiledQuery.raw('rollback to savepoint commit_rider'));
    rider.failed();
  }
}

const committers = new WeakMap<Store, GroupCommitter>();

/** The store's group committer: PostgreSQL commits in a few slots (the pool keeps the rest for reads), SQLite has one writer. */
function groupCommitterOf(store: Store): GroupCommitter {
  let committer = committers.get(store);
  if (!committer) {
    committer = new GroupCommitter(store, store.dialect === 'postgres' ? slotsOfReplica(store, 1) : 1);
    committers.set(store, committer);
  }
  return committer;
}

/** One replica's part of the database's commit slots (`Store.commitSlots`): at least one, at most half its pool. */
function slotsOfReplica(store: Store, replicas: number): number {
  return Math.max(1, Math.min(Math.floor(store.poolSize / 2), Math.round(store.commitSlots / Math.max(1, replicas))));
}

/**
 * Shares the database's commit slots among the replicas that use it (the runtime counts the live
 * ones at start and at each heartbeat): each gets its part, at least one.
 */
export function shareCommitSlots(store: Store, replicas: number): void {
  if (store.dialect !== 'postgres') return;
  groupCommitterOf(store).slots = slotsOfReplica(store, replicas);
}

/**
 * Work that rides on a store's next commit of units of work, in its transaction, after their
 * writes: the audit sealer chains the journal there instead of in a transaction of its own.
 */
export interface CommitRider {
  /** Runs inside the commit's transaction, in a savepoint; it may run again if the transaction is retried. */
  run(trx: WriteTransaction): Promise<void>;
  /** `run` threw: its work was rolled back to the savepoint, the commit went on. */
  failed(): void;
  /** The commit it rode on is over: `committed` says whether its transaction committed (with `run`'s work unless `failed` came last). */
  settle(committed: boolean): void;
}

/**
 * Lets `rider` ride on the next commit of the store's units of work (one rider at a time: a new one
 * replaces one not yet taken, which is settled as not committed). Returns how to withdraw it: true
 * when it had not been taken yet (it will not run).
 */
export function rideOnNextCommit(store: Store, rider: CommitRider): () => boolean {
  const committer = groupCommitterOf(store);
  committer.rider?.settle(false);
  committer.rider = rider;
  return () => {
    if (committer.rider !== rider) return false;
    committer.rider = undefined;
    return true;
  };
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
