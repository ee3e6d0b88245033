import { createHash } from 'node:crypto';
import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import { runInTransaction, type Store, type UnitOfWork } from '../store/index.ts';
import type { AuditEventsTable, CoreDatabase } from '../store/schema.ts';
import { canonicalJson } from './canonical-json.ts';
import { AUDIT_EVENT_TYPES, type AuditEventType } from './event-types.ts';

/** Version of the hashed form of an event; changing the hash input needs a new version. */
export const AUDIT_HASH_VERSION = 'opsgate-audit-v1';
const GENESIS_HASH = '0'.repeat(64);

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

export interface AuditVerification {
  readonly ok: boolean;
  readonly checked: number;
  /** Sequence number of the first event whose hash or link does not verify. */
  readonly firstBrokenSeq?: number;
  readonly reason?: string;
}

export function hashAuditEvent(
  prevHash: string,
  event: { seq: number; sessionId: string | null; type: string; actor: string; payload: string; createdAt: string },
): string {
  const input = canonicalJson([
    AUDIT_HASH_VERSION,
    event.seq,
    event.sessionId,
    event.type,
    event.actor,
    event.payload,
    event.createdAt,
    prevHash,
  ]);
  return createHash('sha256').update(input).digest('hex');
}

type Db = Kysely<CoreDatabase> | Transaction<CoreDatabase>;

/** How long a journaled event may wait before the background sealer chains it. Default 25 ms. */
const DEFAULT_SEAL_DELAY_MS = 25;
/** Events sealed per transaction. */
const SEAL_BATCH = 1000;
/** The PostgreSQL advisory lock that lets one sealer at a time extend the chain across replicas. */
const SEALER_LOCK_KEY = 0x6f707367;

/**
 * Append-only, hash-chained audit events. Each event's hash covers its content and the previous
 * event's hash, so editing, deleting or reordering any stored event breaks verification there.
 *
 * Writers never contend for the chain's tail: an event is first journaled (`audit_pending`) in the
 * same transaction as the change it describes, so no change is stored without its event. One
 * sealer at a time (a transaction holding a PostgreSQL advisory lock; SQLite has one writer)
 * then moves journaled events into the chain in batches, assigning sequence numbers and hashes.
 * Readers (`list`, `verify`, export) seal first, so they see every committed event.
 */
export class AuditLog {
  readonly #store: Store;
  readonly #now: () => Date;
  readonly #sealDelayMs: number;
  #sealTimer: NodeJS.Timeout | undefined;
  #sealing: Promise<number> | undefined;
  #sealAgain = false;
  #onAppend: ((ms: number) => void) | undefined;

  constructor(store: Store, now: () => Date = () => new Date(), options: { sealDelayMs?: number } = {}) {
    this.#store = store;
    this.#now = now;
    this.#sealDelayMs = options.sealDelayMs ?? DEFAULT_SEAL_DELAY_MS;
  }

  /** Observes the time from journaling an event to its sealing (metrics). */
  observeAppends(onAppend: ((ms: number) => void) | undefined): void {
    this.#onAppend = onAppend;
  }

  /**
   * Queues an event in a unit of work: it is journaled in the same transaction as the work's other
   * writes, and sealed into the chain soon after the commit.
   */
  record(uow: UnitOfWork, event: AuditEventInput): void {
    uow.batch('audit_pending', this.#journalRow(event), async (trx, rows) => {
      await trx
        .insertInto('audit_pending')
        .values([...rows])
        .execute();
    });
    uow.afterCommit(() => this.#scheduleSeal());
  }

  /** Journals one event in its own transaction (or in `db` when given) and schedules sealing. */
  async append(event: AuditEventInput, db?: Db): Promise<void> {
    const row = this.#journalRow(event);
    await (db ?? this.#store.db).insertInto('audit_pending').values(row).execute();
    this.#scheduleSeal();
  }

  #journalRow(event: AuditEventInput) {
    return {
      session_id: event.sessionId ?? null,
      type: event.type,
      actor: event.actor,
      payload: canonicalJson(event.payload),
      created_at: this.#now().toISOString(),
    };
  }

  #scheduleSeal(): void {
    if (this.#sealTimer) return;
    this.#sealTimer = setTimeout(() => {
      this.#sealTimer = undefined;
      void this.seal().catch(() => {
        // The next append, reader or timer seals what is left; nothing is lost while it waits.
        this.#scheduleSeal();
      });
    }, this.#sealDelayMs);
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
          const sealed = await this.#sealBatch();
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

  async #sealBatch(): Promise<number> {
    return runInTransaction(this.#store, async (trx) => {
      if (this.#store.dialect === 'postgres') await sql`select pg_advisory_xact_lock(${SEALER_LOCK_KEY})`.execute(trx);
      const pending = await trx.selectFrom('audit_pending').selectAll().orderBy('id', 'asc').limit(SEAL_BATCH).execute();
      if (pending.length === 0) return 0;
      let tail = await readTail(trx);
      const sealed = pending.map((row) => {
        const seq = tail.seq + 1;
        const prevHash = tail.hash;
        const hash = hashAuditEvent(prevHash, {
          seq,
          sessionId: row.session_id,
          type: row.type,
          actor: row.actor,
          payload: row.payload,
          createdAt: row.created_at,
        });
        tail = { seq, hash };
        return {
          seq,
          session_id: row.session_id,
          type: row.type,
          actor: row.actor,
          payload: row.payload,
          prev_hash: prevHash,
          hash,
          created_at: row.created_at,
        };
      });
      for (let i = 0; i < sealed.length; i += 200)
        await trx
          .insertInto('audit_events')
          .values(sealed.slice(i, i + 200))
          .execute();
      // Exactly the rows sealed: on PostgreSQL a lower id may commit after a higher one was read.
      await trx
        .deleteFrom('audit_pending')
        .where(
          'id',
          'in',
          pending.map((row) => row.id),
        )
        .execute();
      if (this.#onAppend) {
        const sealedAt = Date.now();
        for (const row of pending) this.#onAppend(Math.max(0, sealedAt - Date.parse(row.created_at)));
      }
      return pending.length;
    });
  }

  /** Stops the background sealer after sealing what is journaled. */
  async close(): Promise<void> {
    if (this.#sealTimer) clearTimeout(this.#sealTimer);
    this.#sealTimer = undefined;
    await this.seal();
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

  /** Walks the whole chain in order and names the first event that does not verify. */
  async verify(): Promise<AuditVerification> {
    await this.seal();
    let prevHash = GENESIS_HASH;
    let expectedSeq = 1;
    let checked = 0;
    let afterSeq = 0;
    for (;;) {
      const rows = await this.#store.db
        .selectFrom('audit_events')
        .selectAll()
        .where('seq', '>', afterSeq)
        .orderBy('seq', 'asc')
        .limit(2000)
        .execute();
      if (rows.length === 0) break;
      for (const row of rows) {
        if (row.seq !== expectedSeq)
          return { ok: false, checked, firstBrokenSeq: expectedSeq, reason: `event ${expectedSeq} is missing (next stored is ${row.seq})` };
        if (row.prev_hash !== prevHash)
          return { ok: false, checked, firstBrokenSeq: row.seq, reason: `event ${row.seq} does not link to the previous event's hash` };
        const recomputed = hashAuditEvent(prevHash, {
          seq: row.seq,
          sessionId: row.session_id,
          type: row.type,
          actor: row.actor,
          payload: row.payload,
          createdAt: row.created_at,
        });
        if (recomputed !== row.hash)
          return { ok: false, checked, firstBrokenSeq: row.seq, reason: `event ${row.seq} was changed after it was written` };
        if (!AUDIT_EVENT_TYPES.has(row.type) && !/^[a-z][a-z0-9_.]*$/.test(row.type)) {
          return { ok: false, checked, firstBrokenSeq: row.seq, reason: `event ${row.seq} has an invalid type` };
        }
        prevHash = row.hash;
        expectedSeq += 1;
        checked += 1;
        afterSeq = row.seq;
      }
    }
    return { ok: true, checked };
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

async function readTail(db: Db): Promise<{ seq: number; hash: string }> {
  const last = await db.selectFrom('audit_events').select(['seq', 'hash']).orderBy('seq', 'desc').limit(1).executeTakeFirst();
  return last ? { seq: last.seq, hash: last.hash } : { seq: 0, hash: GENESIS_HASH };
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
