import { EventEmitter } from 'node:events';
import { sql } from 'kysely';
import type { Store } from '../store/index.ts';
import type { SessionEventFeed } from './runtime-api.ts';
import type { SessionEvent } from './types.ts';

/**
 * Session events: stored with a per-session sequence number (so a reconnecting client resumes
 * from its last number) and fanned out to live subscribers in this process.
 */
export class SessionEvents implements SessionEventFeed {
  readonly #store: Store;
  readonly #emitter = new EventEmitter();
  readonly #now: () => Date;
  readonly #tails = new Map<string, Promise<unknown>>();

  constructor(store: Store, now: () => Date) {
    this.#store = store;
    this.#now = now;
    this.#emitter.setMaxListeners(0);
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
        this.#emitter.emit(sessionId, event);
        this.#emitter.emit('*', event);
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
