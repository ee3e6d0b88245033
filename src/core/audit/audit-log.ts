import { createHash } from 'node:crypto';
import { CompiledQuery, type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import { OpsgateError } from '../errors/index.ts';
import {
  COMMIT_WITH_FLUSH,
  executeByShape,
  insertRows,
  rideOnNextCommit,
  runInTransaction,
  type Store,
  type UnitOfWork,
  type WriteTransaction,
} from '../store/index.ts';
import type { AuditEventsTable, CoreDatabase } from '../store/schema.ts';
import { AuditErrors } from './audit-errors.ts';
import { type AuditKey, loadAuditKey } from './audit-key.ts';
import { canonicalJson } from './canonical-json.ts';
import { GENESIS_HASH, hashAuditEvent } from './chain-hash.ts';
import { sendToAnchor } from './checkpoint-anchor.ts';
import {
  type AuditCheckpoint,
  appendCheckpointFile,
  checkpointLines,
  insertCheckpoint,
  lastStoredCheckpoint,
  signCheckpoint,
  storeLabel,
} from './checkpoints.ts';
import type { AuditEventType } from './event-types.ts';
import { journalMac, journalMacProblem } from './journal-mac.ts';
import { type AuditVerification, type VerifyOptions, verifyAudit } from './verify-audit.ts';

export { AUDIT_HASH_VERSION, hashAuditEvent } from './chain-hash.ts';

export interface AuditEventInput {
  readonly sessionId?: string | null;
  readonly type: AuditEventType | string;
  /** Who did it: `user:<name>`, `agent:<name>`, `rule:<name>`, `system`. */
  readonly actor: string;
  readonly payload: Record<string, unknown>;
}

export interface AuditEvent extends AuditEventInput {
  readonly seq: number;
  readonly sessionId: string | null;
  readonly prevHash: string;
  readonly hash: string;
  readonly createdAt: string;
}

export interface AuditFilter {
  readonly sessionId?: string;
  readonly actor?: string;
  readonly type?: string;
  readonly since?: string;
  readonly until?: string;
  readonly afterSeq?: number;
  /** Default 500, at most 5,000. */
  readonly limit?: number;
}

export type { AuditVerification } from './verify-audit.ts';

type Db = Kysely<CoreDatabase> | Transaction<CoreDatabase>;

/**
 * How long a journaled event may wait before the background sealer chains it. Default 100 ms: a
 * seal is a transaction of its own, and at 25 ms one round trip at a time paid about one per round
 * trip (issue 32); readers seal first, so nothing committed is invisible to them meanwhile.
 */
const DEFAULT_SEAL_DELAY_MS = 100;
/** A failing background sealer retries at most this rarely (it backs off from the seal delay). */
const MAX_SEAL_RETRY_MS = 5_000;
/** Events sealed per transaction. */
const SEAL_BATCH = 1000;
/** The PostgreSQL advisory lock that lets one sealer at a time extend the chain across replicas. */
const SEALER_LOCK_KEY = 0x6f707367;
/** What a background sealing attempt answers while another replica holds the sealers' lock. */
// Stryker disable next-line StringLiteral: a tag compared only with itself, never with a count
const SEALER_BUSY = 'busy';
/** A checkpoint is signed at most this often while events arrive… */
const DEFAULT_CHECKPOINT_EVERY_MS = 10_000;
/** …or once this many events were sealed since the last one. */
const DEFAULT_CHECKPOINT_EVERY_EVENTS = 1000;

export interface AuditLogOptions {
  readonly sealDelayMs?: number;
  readonly checkpointEveryMs?: number;
  readonly checkpointEveryEvents?: number;
  /** The audit key; default: the store's (`OPSGATE_AUDIT_KEY`, else `<dataDir>/audit.key`, created on first use). */
  readonly key?: AuditKey;
}

/** Failures of the anchors (not of the store) that `close()` reports elsewhere rather than throwing. */
const ANCHOR_ERRORS: ReadonlySet<string> = new Set(['AUDIT_KEY_MISMATCH', 'AUDIT_CHECKPOINT_FILE_UNWRITABLE', 'AUDIT_ANCHOR_UNREACHABLE']);

type CheckpointListener = (checkpoint: AuditCheckpoint) => void;
const checkpointListeners = new WeakMap<Store, Set<CheckpointListener>>();

/**
 * Hears every checkpoint any audit log of `store` signs in this process, after it is committed
 * (`opsgate serve` logs them, so a log system outside the host keeps a copy). Returns how to stop.
 */
export function observeCheckpoints(store: Store, listener: CheckpointListener): () => void {
  const listeners = checkpointListeners.get(store) ?? new Set<CheckpointListener>();
  checkpointListeners.set(store, listeners);
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** What one sealing transaction did: busy (another replica seals), or what it sealed and anchored. */
type SealOutcome =
  | { readonly busy: true }
  | {
      readonly count: number;
      readonly pending?: readonly Selectable<CoreDatabase['audit_pending']>[];
      readonly anchor?: Anchor;
      readonly checkpoint?: AuditCheckpoint;
    };

/** What the sealer knows of the last checkpoint: where it was, when, and where MACs begin. */
interface Anchor {
  readonly seq: number;
  readonly atMs: number;
  readonly macsFrom: number;
}

/**
 * Append-only, hash-chained audit events. Each event's hash covers its content and the previous
 * event's hash, so editing, deleting or reordering any stored event breaks verification there.
 *
 * Writers never contend for the chain's tail: an event is first journaled (`audit_pending`) in the
 * same transaction as the change it describes, so no change is stored without its event. One
 * sealer at a time (a transaction holding a PostgreSQL advisory lock; SQLite has one writer)
 * then moves journaled events into the chain in batches, assigning sequence numbers and hashes.
 * Readers (`list`, `verify`, export) seal first, so they see every committed event.
 *
 * Anchors (see docs/audit-integrity.md): each journal row carries a MAC made in memory with the
 * audit key, which lives outside the store; the sealer seals a row whose MAC fails as an
 * `audit_journal_forgery` event instead. After sealing, the sealer signs checkpoints of the chain
 * head into `audit_checkpoints` and appends them to a file outside the store, so truncation, a
 * wipe or a re-hashed chain no longer match what was signed.
 */
/** The unit-of-work batch events are journaled in (`record`): what a turn keeps when the rest of its unit is dropped. */
export const AUDIT_JOURNAL_BATCH = 'audit_pending';
/** The columns of a journal row, in the order inserts list them. */
const JOURNAL_COLUMNS = ['session_id', 'type', 'actor', 'payload', 'created_at', 'mac'] as const;
/** The columns of a sealed event. */
const SEALED_COLUMNS = ['seq', 'session_id', 'type', 'actor', 'payload', 'prev_hash', 'hash', 'created_at', 'mac'] as const;

export class AuditLog {
  readonly #store: Store;
  readonly #now: () => Date;
  readonly #sealDelayMs: number;
  readonly #checkpointEveryMs: number;
  readonly #checkpointEveryEvents: number;
  #key: AuditKey | undefined;
  #anchor: Anchor | undefined;
  #sealTimer: NodeJS.Timeout | undefined;
  #sealFailures = 0;
  #replicas = 1;
  #sealing: Promise<number> | undefined;
  // Stryker disable next-line BooleanLiteral: every seal clears it before its first pass
  #sealAgain = false;
  /** Withdraws the background sealer's ride on the next commit, if one waits. */
  #withdrawRide: (() => void) | undefined;
  #onAppend: ((ms: number) => void) | undefined;

  constructor(store: Store, now: () => Date = () => new Date(), options: AuditLogOptions = {}) {
    this.#store = store;
    this.#now = now;
    this.#sealDelayMs = options.sealDelayMs ?? DEFAULT_SEAL_DELAY_MS;
    this.#checkpointEveryMs = options.checkpointEveryMs ?? DEFAULT_CHECKPOINT_EVERY_MS;
    this.#checkpointEveryEvents = options.checkpointEveryEvents ?? DEFAULT_CHECKPOINT_EVERY_EVENTS;
    this.#key = options.key;
  }

  /**
   * Tells the background sealer how many replicas share the store (the runtime counts them at each
   * heartbeat). Any replica's seal chains every replica's journal, so each waits `replicas` times the
   * seal delay: together they seal about as often as one process does, instead of each paying a
   * sealing transaction (mostly finding the sealers' lock taken) per delay. Readers still seal first.
   */
  shareSealing(replicas: number): void {
    this.#replicas = Math.max(1, Math.floor(replicas));
  }

  /** How long a journaled event waits before the background sealer chains it, in ms. */
  get sealDelayMs(): number {
    return this.#sealDelayMs * this.#replicas;
  }

  /** Observes the time from journaling an event to its sealing (metrics). */
  observeAppends(onAppend: ((ms: number) => void) | undefined): void {
    this.#onAppend = onAppend;
  }

  /** The key this log writes with (loaded, or created 0600, on first use). */
  #writingKey(): AuditKey {
    this.#key ??= loadAuditKey(this.#store.auditAnchors, { create: true });
    return this.#key!;
  }

  /**
   * Fails with a message saying what to do when the audit key cannot be used: unreadable, or not
   * the key that signed this store's checkpoints. `opsgate serve` calls it at start.
   */
  async assertKey(): Promise<void> {
    const key = this.#writingKey();
    const last = await lastStoredCheckpoint(this.#store.db);
    if (last && last.keyId !== key.id) throw this.#mismatch(key, last.keyId);
  }

  #mismatch(key: AuditKey, expectedKeyId: string) {
    return AuditErrors.AUDIT_KEY_MISMATCH({
      keyId: key.id,
      origin: key.origin,
      expectedKeyId,
      file: this.#store.auditAnchors?.keyFile ?? '<data dir>/audit.key',
    });
  }

  /**
   * Queues an event in a unit of work: it is journaled in the same transaction as the work's other
   * writes, and sealed into the chain soon after the commit.
   */
  record(uow: UnitOfWork, event: AuditEventInput): void {
    uow.share(AUDIT_JOURNAL_BATCH, this.#journalRow(event), (trx, rows) => insertRows(trx, 'audit_pending', JOURNAL_COLUMNS, rows));
    uow.afterCommit(() => this.#scheduleSeal());
  }

  /** Journals one event in its own transaction (or in `db` when given) and schedules sealing. */
  async append(event: AuditEventInput, db?: Db): Promise<void> {
    const row = this.#journalRow(event);
    await (db ?? this.#store.db).insertInto('audit_pending').values(row).execute();
    this.#scheduleSeal();
  }

  #journalRow(event: AuditEventInput) {
    const content = {
      session_id: event.sessionId ?? null,
      type: event.type,
      actor: event.actor,
      payload: canonicalJson(event.payload),
      created_at: this.#now().toISOString(),
    };
    // Computed in memory: authenticating the journal costs no extra round trip.
    return { ...content, mac: journalMac(this.#writingKey(), content) };
  }

  #scheduleSeal(): void {
    if (this.#sealTimer) return;
    const delay = Math.min(this.sealDelayMs * 2 ** this.#sealFailures, MAX_SEAL_RETRY_MS);
    this.#sealTimer = setTimeout(() => {
      this.#sealTimer = undefined;
      void this.#sealInBackground().then(
        () => {
          this.#sealFailures = 0;
        },
        () => {
          // The next append, reader or timer seals what is left; nothing is lost while it waits.
          this.#sealFailures = Math.min(this.#sealFailures + 1, 16);
          this.#scheduleSeal();
        },
      );
    }, delay);
    this.#sealTimer.unref();
  }

  /** Seals every journaled event into the chain; returns how many this call sealed. */
  async seal(): Promise<number> {
    if (this.#sealing) {
      this.#sealAgain = true;
      return this.#sealing;
    }
    this.#sealing = (async () => {
      let total = 0;
      do {
        this.#sealAgain = false;
        for (;;) {
          const sealed = await this.#sealBatch(true);
          total += sealed;
          if (sealed < SEAL_BATCH) break;
        }
      } while (this.#sealAgain);
      return total;
    })().finally(() => {
      this.#sealing = undefined;
    });
    return this.#sealing;
  }

  /**
   * The background sealer: on the next commit of a turn when it can (no transaction of its own), else
   * (no commit came within the seal delay, an earlier attempt failed) in a transaction of its own.
   */
  async #sealInBackground(): Promise<void> {
    if (this.#sealFailures === 0) {
      const again = await this.#rideNextCommit();
      if (again) this.#scheduleSeal();
      if (again !== undefined) return;
    }
    await this.#sealUnlessBusy();
  }

  /**
   * The background sealer on its own: while another replica holds the sealers' lock it does not queue for it
   * (holding a connection), it tries again later; what the other replica did not take is sealed then.
   */
  async #sealUnlessBusy(): Promise<void> {
    for (;;) {
      const sealed = await this.#sealBatch(false);
      if (sealed === SEALER_BUSY) {
        this.#scheduleSeal();
        return;
      }
      if (sealed < SEAL_BATCH) return;
    }
  }

  /**
   * Takes the sealers' lock for a sealing transaction of its own (PostgreSQL; SQLite has one writer).
   * With `wait` false it does not queue: false means another replica is sealing now. With `durable`
   * false the transaction commits without waiting for its WAL flush (see #sealBatch), in the same statement.
   */
  async #lockSealers(trx: WriteTransaction, wait: boolean, durable: boolean): Promise<boolean> {
    if (this.#store.dialect !== 'postgres') return true;
    const commit = durable ? 'on' : 'off';
    if (wait) {
      await sql`select pg_advisory_xact_lock(${SEALER_LOCK_KEY}), set_config('synchronous_commit', ${commit}, true)`.execute(trx);
      return true;
    }
    const { rows } = await sql<{ locked: boolean }>`
      select pg_try_advisory_xact_lock(${SEALER_LOCK_KEY}) as locked, set_config('synchronous_commit', ${commit}, true)`.execute(trx);
    // Stryker disable next-line OptionalChaining: a select without FROM always returns its one row
    return rows[0]?.locked === true;
  }

  /**
   * Tries the sealers' lock inside a turn's commit (`#rideNextCommit`): never queues, and leaves the
   * commit's durability to the turn.
   */
  async #tryLockSealersOnRide(trx: WriteTransaction): Promise<boolean> {
    if (this.#store.dialect !== 'postgres') return true;
    const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(${SEALER_LOCK_KEY}) as locked`.execute(trx);
    // Stryker disable next-line OptionalChaining: a select without FROM always returns its one row
    return rows[0]?.locked === true;
  }

  /** A checkpoint leaves the store (its observers, the anchor file) once committed: that commit waits for the WAL flush. */
  async #commitDurably(trx: WriteTransaction): Promise<void> {
    // The store's own statement: it also cancels the flush a ridden-on commit had given up (COMMIT_WITH_FLUSH).
    if (this.#store.dialect === 'postgres') await trx.executeQuery(CompiledQuery.raw(COMMIT_WITH_FLUSH));
  }

  /** Seals one batch in a transaction of its own; with `wait` false, answers SEALER_BUSY at once when another replica is sealing. */
  async #sealBatch(wait: true): Promise<number>;
  async #sealBatch(wait: false): Promise<number | typeof SEALER_BUSY>;
  async #sealBatch(wait: boolean): Promise<number | typeof SEALER_BUSY> {
    const outcome = await runInTransaction(
      this.#store,
      // Stryker disable next-line BooleanLiteral: a durable seal is correct, only one WAL flush slower (see #sealIn)
      (trx) => this.#sealIn(trx, () => this.#lockSealers(trx, wait, false)),
      { kind: 'audit-seal' },
    );
    return this.#sealed(outcome);
  }

  /**
   * The background sealer's usual way (issue 32): chain the journal inside the next commit of the
   * store's units of work (a checkpoint of some turn), so sealing costs no transaction of its own.
   * Resolves to whether to seal again soon (another replica was sealing, or a full batch may have
   * left more; false as well when the log closed first), or undefined when no commit came within the
   * seal delay or the ride failed (then the caller seals in a transaction of its own). A checkpoint it
   * signs makes that commit wait for its WAL flush, as a seal of its own would.
   */
  #rideNextCommit(): Promise<boolean | undefined> {
    return new Promise((resolve) => {
      let outcome: SealOutcome | undefined;
      const withdraw = rideOnNextCommit(this.#store, {
        run: async (trx) => {
          outcome = undefined;
          outcome = await this.#sealIn(trx, () => this.#tryLockSealersOnRide(trx));
        },
        failed: () => {
          outcome = undefined;
        },
        settle: (committed) => {
          // Stryker disable next-line all: once a commit took the ride, the fallback's withdraw finds it gone and does nothing
          clearTimeout(fallback);
          resolve(
            committed && outcome ? this.#sealed(outcome).then((sealed) => sealed === SEALER_BUSY || sealed >= SEAL_BATCH) : undefined,
          );
        },
      });
      const fallback = setTimeout(() => {
        if (withdraw()) resolve(undefined);
      }, this.sealDelayMs);
      fallback.unref();
      this.#withdrawRide = () => {
        // Stryker disable next-line all: the fallback's withdraw would find the ride gone and do nothing
        clearTimeout(fallback);
        if (withdraw()) resolve(false);
      };
    });
  }

  /** After a sealing transaction committed: remembers the anchor, publishes a signed checkpoint, reports append times. */
  async #sealed(outcome: SealOutcome): Promise<number | typeof SEALER_BUSY> {
    if ('busy' in outcome) return SEALER_BUSY;
    if (outcome.anchor) this.#anchor = outcome.anchor;
    if (outcome.checkpoint) await this.#publish(outcome.checkpoint);
    if (this.#onAppend && outcome.pending) {
      const sealedAt = Date.now();
      for (const row of outcome.pending) this.#onAppend(Math.max(0, sealedAt - Date.parse(row.created_at)));
    }
    return outcome.count;
  }

  /**
   * Seals one batch in `trx` once `lock` took the sealers' lock; busy when it answers false (another replica is sealing).
   * A seal of its own commits without waiting for the WAL flush (`durable` false; PostgreSQL's
   * asynchronous commit): the journal rows it chains are durable already and are deleted in the same
   * transaction, so a crash that loses the commit leaves them journaled, and the next seal chains them
   * again to the same hashes (the chain is computed from the journal rows and the durable tail; a later
   * durable commit flushes the WAL up to itself, so no durable state ever builds on a lost seal). One
   * fsync fewer per seal — at one round trip at a time, almost one per round trip. A batch that signs a
   * checkpoint commits durably: a checkpoint is copied out of the store once committed. Riding on a
   * turn's commit (`#tryLockSealersOnRide`), the seal commits as that commit does, unless it signs.
   */
  async #sealIn(trx: WriteTransaction, lock: () => Promise<boolean>): Promise<SealOutcome> {
    const key = this.#writingKey();
    if (!(await lock())) return { busy: true };
    const pending = await trx.selectFrom('audit_pending').selectAll().orderBy('id', 'asc').limit(SEAL_BATCH).execute();
    if (pending.length === 0) return { count: 0 };
    let tail = await readTail(trx);
    const anchor = this.#anchor ?? (await this.#loadAnchor(trx, key, tail.seq));
    // A row without a MAC is a forgery already; only rows whose MAC verifies can repeat one.
    const seenMacs = new Set<string | null>();
    const sealed = pending.map((row) => {
      const problem = journalMacProblem(key, row) ?? (seenMacs.has(row.mac) ? 'it repeats another row of the same batch' : undefined);
      seenMacs.add(row.mac);
      const content = problem ? this.#forgeryEvent(key, row, problem) : { ...row, mac: row.mac };
      const seq = tail.seq + 1;
      const prevHash = tail.hash;
      const hash = hashAuditEvent(prevHash, {
        seq,
        sessionId: content.session_id,
        type: content.type,
        actor: content.actor,
        payload: content.payload,
        createdAt: content.created_at,
      });
      tail = { seq, hash };
      return {
        seq,
        session_id: content.session_id,
        type: content.type,
        actor: content.actor,
        payload: content.payload,
        prev_hash: prevHash,
        hash,
        created_at: content.created_at,
        mac: content.mac,
      };
    });
    for (let i = 0; i < sealed.length; i += 200) await insertRows(trx, 'audit_events', SEALED_COLUMNS, sealed.slice(i, i + 200));
    // Exactly the rows sealed: on PostgreSQL a lower id may commit after a higher one was read.
    const ids = pending.map((row) => row.id);
    await executeByShape(trx, `delete audit_pending × ${ids.length}`, ids, () => trx.deleteFrom('audit_pending').where('id', 'in', ids));
    if (!this.#checkpointDue(anchor, tail.seq)) return { count: pending.length, pending, anchor };
    await this.#commitDurably(trx);
    const checkpoint = await this.#signHead(trx, key, anchor, tail);
    return { count: pending.length, pending, anchor: toAnchor(checkpoint), checkpoint };
  }

  /** A row that does not verify is sealed as a record of the forgery, never as what it claims. */
  #forgeryEvent(key: AuditKey, row: Selectable<CoreDatabase['audit_pending']>, problem: string) {
    const content = {
      session_id: row.session_id,
      type: 'audit_journal_forgery',
      actor: 'system',
      payload: canonicalJson({
        journalId: Number(row.id),
        reason: `journal row ${Number(row.id)}: ${problem}; it was not written by opsgate with this store's audit key`,
        claimed: { type: row.type, actor: row.actor, createdAt: row.created_at },
        payloadSha256: createHash('sha256').update(row.payload).digest('hex'),
      }),
      created_at: this.#now().toISOString(),
    };
    return { ...content, mac: journalMac(key, content) };
  }

  /** The last checkpoint, read once per log; a store signed with another key stops the sealer. */
  async #loadAnchor(db: Db, key: AuditKey, tailSeq: number): Promise<Anchor> {
    const last = await lastStoredCheckpoint(db);
    if (last) {
      if (last.keyId !== key.id) throw this.#mismatch(key, last.keyId);
      return toAnchor(last);
    }
    const firstMac = await db
      .selectFrom('audit_events')
      .select((eb) => eb.fn.min('seq').as('seq'))
      .where('mac', 'is not', null)
      .executeTakeFirst();
    // Stryker disable next-line OptionalChaining: an aggregate without GROUP BY always returns its one row
    return { seq: 0, atMs: Number.NEGATIVE_INFINITY, macsFrom: firstMac?.seq == null ? tailSeq + 1 : Number(firstMac.seq) };
  }

  #checkpointDue(anchor: Anchor, headSeq: number): boolean {
    if (headSeq <= anchor.seq) return false;
    return headSeq - anchor.seq >= this.#checkpointEveryEvents || this.#now().getTime() - anchor.atMs >= this.#checkpointEveryMs;
  }

  async #signHead(db: Db, key: AuditKey, anchor: Anchor, head: { seq: number; hash: string }): Promise<AuditCheckpoint> {
    const checkpoint = signCheckpoint(key, { seq: head.seq, hash: head.hash, at: this.#now().toISOString(), macsFrom: anchor.macsFrom });
    await insertCheckpoint(db, checkpoint);
    return checkpoint;
  }

  /**
   * Copies a committed checkpoint outside the store: to its observers, the append-only file and
   * the external anchor. Whichever replica signs a checkpoint sends it, so the anchor holds them all.
   */
  async #publish(checkpoint: AuditCheckpoint): Promise<void> {
    for (const listener of checkpointListeners.get(this.#store) ?? []) listener(checkpoint);
    const file = this.#store.auditAnchors?.checkpointFile;
    if (file) {
      try {
        appendCheckpointFile(file, storeLabel(this.#store), [checkpoint]);
      } catch (error) {
        throw AuditErrors.AUDIT_CHECKPOINT_FILE_UNWRITABLE({
          file,
          detail: (error as NodeJS.ErrnoException).code ?? (error as Error).message,
        });
      }
    }
    const command = this.#store.auditAnchors?.anchorCommand;
    if (!command) return;
    try {
      await sendToAnchor(command, checkpointLines(storeLabel(this.#store), [checkpoint]));
    } catch (error) {
      throw AuditErrors.AUDIT_ANCHOR_UNREACHABLE({ seq: checkpoint.seq, detail: (error as Error).message });
    }
  }

  /** Signs a checkpoint of the sealed head now if it moved since the last one (on close, in tests). */
  async checkpoint(): Promise<AuditCheckpoint | undefined> {
    await this.seal();
    const key = this.#writingKey();
    const outcome = await runInTransaction(
      this.#store,
      async (trx) => {
        await this.#lockSealers(trx, true, true);
        const tail = await readTail(trx);
        const anchor = await this.#loadAnchor(trx, key, tail.seq);
        if (tail.seq <= anchor.seq) return { anchor };
        const checkpoint = await this.#signHead(trx, key, anchor, tail);
        return { anchor: toAnchor(checkpoint), checkpoint };
      },
      { kind: 'audit-seal' },
    );
    this.#anchor = outcome.anchor;
    if (outcome.checkpoint) await this.#publish(outcome.checkpoint);
    return outcome.checkpoint;
  }

  /** Stops the background sealer after sealing what is journaled and anchoring the head. */
  async close(): Promise<void> {
    // Stryker disable next-line ConditionalExpression: clearTimeout(undefined) does nothing
    if (this.#sealTimer) clearTimeout(this.#sealTimer);
    this.#sealTimer = undefined;
    this.#withdrawRide?.();
    try {
      await this.checkpoint();
    } catch (error) {
      // A wrong key or an unwritable checkpoint file must not keep the store open: what is
      // journaled stays journaled, and the next start (`assertKey`) or seal names the problem.
      if (!(OpsgateError.isInstance(error) && ANCHOR_ERRORS.has(error.code))) throw error;
    }
  }

  async list(filter: AuditFilter = {}): Promise<AuditEvent[]> {
    await this.seal();
    let query = this.#store.db.selectFrom('audit_events').selectAll();
    if (filter.sessionId) query = query.where('session_id', '=', filter.sessionId);
    if (filter.actor) query = query.where('actor', '=', filter.actor);
    if (filter.type) query = query.where('type', '=', filter.type);
    if (filter.since) query = query.where('created_at', '>=', filter.since);
    if (filter.until) query = query.where('created_at', '<=', filter.until);
    if (filter.afterSeq !== undefined) query = query.where('seq', '>', filter.afterSeq);
    const rows = await query
      .orderBy('seq', 'asc')
      .limit(Math.min(filter.limit ?? 500, 5000))
      .execute();
    return rows.map(toEvent);
  }

  /**
   * Walks the whole chain in order and names the first thing that does not verify: an event
   * changed, missing or forged, a chain shorter than or different from a signed checkpoint, or a
   * tool call whose audit events are missing.
   */
  async verify(options: VerifyOptions = {}): Promise<AuditVerification> {
    const key = this.#key ?? loadAuditKey(this.#store.auditAnchors, { create: false });
    return verifyAudit(this.#store, key, () => this.seal(), options);
  }

  /** Every event as JSON Lines, oldest first. */
  async *exportJsonLines(filter: Omit<AuditFilter, 'afterSeq' | 'limit'> = {}): AsyncGenerator<string> {
    let afterSeq = 0;
    for (;;) {
      const page = await this.list({ ...filter, afterSeq, limit: 2000 });
      if (page.length === 0) return;
      for (const event of page) yield `${JSON.stringify(event)}\n`;
      afterSeq = page[page.length - 1]!.seq;
    }
  }
}

function toAnchor(checkpoint: AuditCheckpoint): Anchor {
  return { seq: checkpoint.seq, atMs: Date.parse(checkpoint.at), macsFrom: checkpoint.macsFrom };
}

async function readTail(db: Db): Promise<{ seq: number; hash: string }> {
  const last = await db.selectFrom('audit_events').select(['seq', 'hash']).orderBy('seq', 'desc').limit(1).executeTakeFirst();
  return last ? { seq: Number(last.seq), hash: last.hash } : { seq: 0, hash: GENESIS_HASH };
}

function toEvent(row: Selectable<AuditEventsTable>): AuditEvent {
  return {
    seq: row.seq,
    sessionId: row.session_id,
    type: row.type,
    actor: row.actor,
    payload: JSON.parse(row.payload) as Record<string, unknown>,
    prevHash: row.prev_hash,
    hash: row.hash,
    createdAt: row.created_at,
  };
}
