import { createHash } from 'node:crypto';
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Store } from '../store/index.ts';
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

/**
 * Append-only, hash-chained audit events. Each event's hash covers its content and the previous
 * event's hash, so editing, deleting or reordering any stored event breaks verification there.
 */
export class AuditLog {
  readonly #store: Store;
  readonly #now: () => Date;
  #tail: { seq: number; hash: string } | undefined;

  constructor(store: Store, now: () => Date = () => new Date()) {
    this.#store = store;
    this.#now = now;
  }

  /**
   * Appends one event. The chain's tail is cached and the insert names its sequence number, so a
   * writer in another process that appended first makes this insert collide on the key; the tail
   * is then re-read and the append retried. One statement in the common case.
   */
  async append(event: AuditEventInput, db: Db = this.#store.db): Promise<AuditEvent> {
    const createdAt = this.#now().toISOString();
    const payload = canonicalJson(event.payload);
    const sessionId = event.sessionId ?? null;
    for (let attempt = 0; attempt < 20; attempt += 1) {
      if (!this.#tail || attempt > 0) this.#tail = await readTail(db);
      const seq = this.#tail.seq + 1;
      const prevHash = this.#tail.hash;
      const hash = hashAuditEvent(prevHash, { seq, sessionId, type: event.type, actor: event.actor, payload, createdAt });
      try {
        await db
          .insertInto('audit_events')
          .values({
            seq,
            session_id: sessionId,
            type: event.type,
            actor: event.actor,
            payload,
            prev_hash: prevHash,
            hash,
            created_at: createdAt,
          })
          .execute();
      } catch (error) {
        if (isUniqueViolation(error)) continue;
        throw error;
      }
      this.#tail = { seq, hash };
      return { seq, sessionId, type: event.type, actor: event.actor, payload: event.payload, prevHash, hash, createdAt };
    }
    throw new Error('could not append to the audit log: it kept changing underneath (20 attempts)');
  }

  async list(filter: AuditFilter = {}): Promise<AuditEvent[]> {
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

function isUniqueViolation(error: unknown): boolean {
  const record = error as { code?: unknown; message?: unknown };
  return record?.code === '23505' || /UNIQUE constraint failed|PRIMARY KEY/i.test(String(record?.message ?? ''));
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
