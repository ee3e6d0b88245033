import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { sql } from 'kysely';
import { executeByShape, insertRows, ListeningWhileNeeded, type Store, type UnitOfWork, type WriteTransaction } from '../store/index.ts';
import { NO_OBSERVER, type RuntimeObserver } from '../telemetry/index.ts';
import { LastEventNumbers } from './event-numbers.ts';
import type { SessionEventFeed } from './runtime-api.ts';
import type { SessionEvent } from './types.ts';

const EVENTS_CHANNEL = 'opsgate_session_events';
/** An event queued in a unit of work: numbered when its transaction stores it. */
type QueuedEvent = Omit<SessionEvent, 'seq'> & { seq: number };

/**
 * Session events: stored with a per-session sequence number (so a reconnecting client resumes
 * from its last number) and fanned out to live subscribers — in this process directly, and in
 * every other process sharing a PostgreSQL store through LISTEN/NOTIFY.
 *
 * Every PostgreSQL commit of events sends a notice, but a process LISTENs only while somebody
 * there follows a session: PostgreSQL wakes every listening connection of the database for every
 * notice, and each wake is a transaction (issue 24 counted ~4 per round trip per replica).
 */
export class SessionEvents implements SessionEventFeed {
  readonly #store: Store;
  readonly #emitter = new EventEmitter();
  readonly #now: () => Date;
  readonly #tails = new Map<string, Promise<unknown>>();
  readonly #origin = randomUUID();
  readonly #relayed = new Map<string, number>();
  readonly #relayTails = new Map<string, Promise<void>>();
  readonly #listener: ListeningWhileNeeded;
  /** SQLite (one process per file) only: PostgreSQL replicas share sessions, and number by reading. */
  readonly #lastNumbers: LastEventNumbers | undefined;

  readonly #observer: RuntimeObserver;

  constructor(store: Store, now: () => Date, observer: RuntimeObserver = NO_OBSERVER) {
    this.#store = store;
    this.#now = now;
    this.#observer = observer;
    this.#lastNumbers = store.notifications ? undefined : new LastEventNumbers();
    this.#emitter.setMaxListeners(0);
    this.#listener = new ListeningWhileNeeded(store.notifications, EVENTS_CHANNEL, (payload) => this.#relay(payload));
  }

  async listening(): Promise<void> {
    await this.#listener.ready();
  }

  async stop(): Promise<void> {
    await this.#listener.close();
  }

  /** Relays another process's events in order: per session, everything after the last relayed number. */
  #relay(payload: string): void {
    let note: { origin?: string; sessionId?: string; first?: number; seq?: number };
    try {
      note = JSON.parse(payload) as typeof note;
    } catch {
      return;
    }
    const { origin, sessionId, first, seq } = note;
    if (origin === this.#origin || !sessionId || typeof seq !== 'number') return;
    // Nobody here follows this session: reading its events would cost every replica a query per
    // event of every other replica (issue 24 measured ~14 extra transactions per round trip at 3).
    if (this.#emitter.listenerCount(sessionId) === 0) return;
    const previous = this.#relayTails.get(sessionId) ?? Promise.resolve();
    const next = previous.then(async () => {
      const after = this.#relayed.get(sessionId) ?? (typeof first === 'number' ? first : seq) - 1;
      if (seq <= after) return;
      for (const event of await this.since(sessionId, after)) {
        this.#relayed.set(sessionId, event.seq);
        this.#emit(event, true);
      }
    });
    this.#relayTails.set(
      sessionId,
      next.catch(() => {}),
    );
  }

  /**
   * Session listeners hear every event of their session, wherever it was written. Listeners of
   * every session (`'*'`: chat integrations, webhooks) hear the events this process wrote, so
   * that with several replicas each event is delivered once, by the replica that wrote it.
   */
  #emit(event: SessionEvent, relayed = false): void {
    this.#observer.liveEventLag(Math.max(0, Date.now() - Date.parse(event.createdAt)), relayed);
    this.#emitter.emit(event.sessionId, event);
    if (!relayed) this.#emitter.emit('*', event);
  }

  /**
   * Stores and fans out one event. Publishes of a session are chained in this process so their
   * numbers follow the order they were made in; a writer in another process that took the same
   * number makes the insert collide, and it is retried with the next one.
   */
  publish(sessionId: string, type: string, data: unknown): Promise<SessionEvent> {
    const previous = this.#tails.get(sessionId) ?? Promise.resolve();
    const next = previous.then(
      () => this.#insert(sessionId, type, data),
      () => this.#insert(sessionId, type, data),
    );
    this.#tails.set(sessionId, next);
    void next
      .finally(() => {
        if (this.#tails.get(sessionId) === next) this.#tails.delete(sessionId);
      })
      .catch(() => {});
    return next;
  }

  /**
   * Queues one event in a unit of work: numbered and stored in its transaction (other replicas
   * are notified on commit), and fanned out to this process's subscribers after the commit. The
   * events of every session committed in the same transaction are stored by one statement.
   */
  record(uow: UnitOfWork, sessionId: string, type: string, data: unknown): void {
    const event: QueuedEvent = { sessionId, seq: 0, type, data: data ?? null, createdAt: this.#now().toISOString() };
    uow.share('session_events', event, (trx, events) => this.#insertBatch(trx, events));
    uow.afterCommit(() => {
      this.#lastNumbers?.stored(sessionId, event.seq);
      this.#emit(event);
    });
  }

  /** `sessionId` was just created by this process: its first events are numbered from 1 without reading. */
  created(sessionId: string): void {
    this.#lastNumbers?.created(sessionId);
  }

  /**
   * Stores events of sessions whose last number this process knows (one process per SQLite file)
   * with the numbers given, reading nothing. False when a session's number is unknown. A number
   * gone stale (events stored another way) makes the insert collide: it is forgotten, and the
   * transaction's retry numbers by reading.
   */
  async #insertKnown(trx: WriteTransaction, events: readonly QueuedEvent[]): Promise<boolean> {
    const next = new Map<string, number>();
    for (const event of events) {
      if (next.has(event.sessionId)) continue;
      const last = this.#lastNumbers?.get(event.sessionId);
      if (last === undefined) return false;
      next.set(event.sessionId, last + 1);
    }
    const rows = events.map((event) => {
      const seq = next.get(event.sessionId)!;
      next.set(event.sessionId, seq + 1);
      return { session_id: event.sessionId, seq, type: event.type, data: JSON.stringify(event.data), created_at: event.createdAt };
    });
    try {
      await insertRows(trx, 'session_events', ['session_id', 'seq', 'type', 'data', 'created_at'], rows);
    } catch (error) {
      for (const sessionId of next.keys()) this.#lastNumbers?.forget(sessionId);
      throw error;
    }
    events.forEach((event, index) => {
      event.seq = rows[index]!.seq;
    });
    return true;
  }

  /**
   * Numbers and stores the events of one or more sessions in one statement, each session's after
   * its last stored number, in the order given; other replicas hear of each session's batch on commit.
   */
  async #insertBatch(trx: WriteTransaction, events: readonly QueuedEvent[]): Promise<void> {
    if (await this.#insertKnown(trx, events)) return;
    const ordinals = new Map<string, number>();
    const ordinalOf = events.map((event) => {
      const ordinal = (ordinals.get(event.sessionId) ?? 0) + 1;
      ordinals.set(event.sessionId, ordinal);
      return ordinal;
    });
    const values = events.map((event, index) => [
      event.sessionId,
      ordinalOf[index]!,
      event.type,
      JSON.stringify(event.data),
      event.createdAt,
    ]);
    // The statement's text depends only on how many events it stores (built once per count).
    const ctes = () => {
      const rows = sql.join(
        values.map(
          ([sessionId, ordinal, type, data, createdAt]) => sql`(${sessionId}, cast(${ordinal} as integer), ${type}, ${data}, ${createdAt})`,
        ),
      );
      return sql`batch(session_id, ordinal, type, data, created_at) as (values ${rows}),
      base as (
        select sessions.session_id, coalesce((select max(seq) from session_events where session_events.session_id = sessions.session_id), 0) as seq
        from (select distinct session_id from batch) as sessions)`;
    };
    const numbered = sql`
      select batch.session_id, base.seq + batch.ordinal, batch.type, batch.data, batch.created_at
      from batch join base on base.session_id = batch.session_id`;
    const columns = sql`session_events (session_id, seq, type, data, created_at)`;
    const firsts = new Map<string, number>();
    if (this.#store.notifications) {
      // Listening replicas hear of each session's batch on commit; the notice rides on the insert,
      // saving a round trip per commit. `first` lets a replica whose listener came after the
      // session's earlier notices read the whole batch.
      const stored = await executeByShape<{ session_id: string; first: number }>(
        trx,
        `session events, notified × ${events.length}`,
        [...values.flat(), EVENTS_CHANNEL, this.#origin],
        () => sql<{ session_id: string; first: number }>`
        with ${ctes()}, inserted as (insert into ${columns} ${numbered} returning session_id, seq),
        notices as (select session_id, min(seq) as first, max(seq) as last from inserted group by session_id)
        select session_id, first,
          pg_notify(${EVENTS_CHANNEL}, json_build_object('origin', ${this.#origin}::text, 'sessionId', session_id, 'first', first, 'seq', last)::text) as notified
        from notices`,
      );
      for (const row of stored.rows) firsts.set(row.session_id, Number(row.first));
    } else {
      const stored = await executeByShape<{ session_id: string; seq: number }>(
        trx,
        `session events × ${events.length}`,
        values.flat(),
        () => sql<{ session_id: string; seq: number }>`insert into ${columns} with ${ctes()} ${numbered} returning session_id, seq`,
      );
      for (const row of stored.rows)
        firsts.set(row.session_id, Math.min(Number(row.seq), firsts.get(row.session_id) ?? Number.POSITIVE_INFINITY));
    }
    events.forEach((event, index) => {
      event.seq = firsts.get(event.sessionId)! + ordinalOf[index]! - 1;
    });
  }

  async #insert(sessionId: string, type: string, data: unknown): Promise<SessionEvent> {
    const createdAt = this.#now().toISOString();
    const payload = JSON.stringify(data ?? null);
    // Numbered by reading, outside any unit of work: a remembered number would be stale after it.
    this.#lastNumbers?.forget(sessionId);
    for (let attempt = 0; ; attempt += 1) {
      try {
        const row = await sql<{ seq: number }>`
          insert into session_events (session_id, seq, type, data, created_at)
          select ${sessionId}, coalesce(max(seq), 0) + 1, ${type}, ${payload}, ${createdAt}
          from session_events where session_id = ${sessionId}
          returning seq`.execute(this.#store.db);
        const event: SessionEvent = { sessionId, seq: Number(row.rows[0]!.seq), type, data: data ?? null, createdAt };
        this.#lastNumbers?.forget(sessionId);
        this.#emit(event);
        if (this.#store.notifications) {
          await this.#store.notifications.notify(EVENTS_CHANNEL, JSON.stringify({ origin: this.#origin, sessionId, seq: event.seq }));
        }
        return event;
      } catch (error) {
        const record = error as { code?: unknown; message?: unknown };
        const collided = record?.code === '23505' || /UNIQUE constraint failed/i.test(String(record?.message ?? ''));
        if (!collided || attempt >= 20) throw error;
      }
    }
  }

  async since(sessionId: string, afterSeq: number): Promise<SessionEvent[]> {
    await this.#listener.ready();
    const rows = await this.#store.db
      .selectFrom('session_events')
      .selectAll()
      .where('session_id', '=', sessionId)
      .where('seq', '>', afterSeq)
      .orderBy('seq', 'asc')
      .limit(5000)
      .execute();
    return rows.map((r) => ({
      sessionId: r.session_id,
      seq: r.seq,
      type: r.type,
      data: JSON.parse(r.data) as unknown,
      createdAt: r.created_at,
    }));
  }

  subscribe(sessionId: string | '*', listener: (event: SessionEvent) => void): () => void {
    this.#emitter.on(sessionId, listener);
    // Other replicas' events matter only to the followers of one session ('*' hears this process's own).
    if (sessionId !== '*') this.#listener.need();
    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      this.#emitter.off(sessionId, listener);
      if (this.#emitter.listenerCount(sessionId) === 0) this.#relayed.delete(sessionId);
      if (sessionId !== '*') this.#listener.release();
    };
  }
}
