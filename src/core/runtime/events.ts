import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { sql } from 'kysely';
import type { Store, UnitOfWork } from '../store/index.ts';
import type { SessionEventFeed } from './runtime-api.ts';
import type { SessionEvent } from './types.ts';

const EVENTS_CHANNEL = 'opsgate_session_events';

/**
 * Session events: stored with a per-session sequence number (so a reconnecting client resumes
 * from its last number) and fanned out to live subscribers — in this process directly, and in
 * every other process sharing a PostgreSQL store through LISTEN/NOTIFY.
 */
export class SessionEvents implements SessionEventFeed {
  readonly #store: Store;
  readonly #emitter = new EventEmitter();
  readonly #now: () => Date;
  readonly #tails = new Map<string, Promise<unknown>>();
  readonly #origin = randomUUID();
  readonly #relayed = new Map<string, number>();
  readonly #relayTails = new Map<string, Promise<void>>();
  #stopListening: (() => Promise<void>) | undefined;

  constructor(store: Store, now: () => Date) {
    this.#store = store;
    this.#now = now;
    this.#emitter.setMaxListeners(0);
  }

  /** Starts hearing other processes' events (PostgreSQL only). */
  async start(): Promise<void> {
    const notifications = this.#store.notifications;
    if (!notifications || this.#stopListening) return;
    this.#stopListening = await notifications.listen(EVENTS_CHANNEL, (payload) => {
      this.#relay(payload);
    });
  }

  async stop(): Promise<void> {
    await this.#stopListening?.();
    this.#stopListening = undefined;
  }

  /** Relays another process's events in order: per session, everything after the last relayed number. */
  #relay(payload: string): void {
    let note: { origin?: string; sessionId?: string; seq?: number };
    try {
      note = JSON.parse(payload) as typeof note;
    } catch {
      return;
    }
    const { origin, sessionId, seq } = note;
    if (origin === this.#origin || !sessionId || typeof seq !== 'number') return;
    const previous = this.#relayTails.get(sessionId) ?? Promise.resolve();
    const next = previous.then(async () => {
      const after = this.#relayed.get(sessionId) ?? seq - 1;
      if (seq <= after) return;
      for (const event of await this.since(sessionId, after)) {
        this.#relayed.set(sessionId, event.seq);
        this.#emit(event);
      }
    });
    this.#relayTails.set(
      sessionId,
      next.catch(() => {}),
    );
  }

  #emit(event: SessionEvent): void {
    this.#emitter.emit(event.sessionId, event);
    this.#emitter.emit('*', event);
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
   * are notified on commit), and fanned out to this process's subscribers after the commit.
   */
  record(uow: UnitOfWork, sessionId: string, type: string, data: unknown): void {
    const createdAt = this.#now().toISOString();
    const payload = JSON.stringify(data ?? null);
    let seq = 0;
    uow.write(async (trx) => {
      const row = await sql<{ seq: number }>`
        insert into session_events (session_id, seq, type, data, created_at)
        select ${sessionId}, coalesce(max(seq), 0) + 1, ${type}, ${payload}, ${createdAt}
        from session_events where session_id = ${sessionId}
        returning seq`.execute(trx);
      seq = Number(row.rows[0]!.seq);
      if (this.#stopListening) {
        const note = JSON.stringify({ origin: this.#origin, sessionId, seq });
        await sql`select pg_notify(${EVENTS_CHANNEL}, ${note})`.execute(trx);
      }
    });
    uow.afterCommit(() => this.#emit({ sessionId, seq, type, data: data ?? null, createdAt }));
  }

  async #insert(sessionId: string, type: string, data: unknown): Promise<SessionEvent> {
    const createdAt = this.#now().toISOString();
    const payload = JSON.stringify(data ?? null);
    for (let attempt = 0; ; attempt += 1) {
      try {
        const row = await sql<{ seq: number }>`
          insert into session_events (session_id, seq, type, data, created_at)
          select ${sessionId}, coalesce(max(seq), 0) + 1, ${type}, ${payload}, ${createdAt}
          from session_events where session_id = ${sessionId}
          returning seq`.execute(this.#store.db);
        const event: SessionEvent = { sessionId, seq: Number(row.rows[0]!.seq), type, data: data ?? null, createdAt };
        this.#emit(event);
        if (this.#stopListening) {
          await this.#store.notifications?.notify(EVENTS_CHANNEL, JSON.stringify({ origin: this.#origin, sessionId, seq: event.seq }));
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
    return () => this.#emitter.off(sessionId, listener);
  }
}
