import type { StoredMessage } from './messages.ts';
import type { SessionRow, ToolCallRow } from './session-repository.ts';
import type { WorkingSession } from './working-session.ts';

/** Sessions kept per process. Default 2,000 (the least recently used leave first). */
const DEFAULT_CAPACITY = 2000;

/** A session as last stored by this process. */
export interface CachedSession {
  readonly row: SessionRow;
  readonly messages: readonly StoredMessage[];
  readonly calls: readonly ToolCallRow[];
}

/**
 * The sessions this process stored last, so that the next turn need not read the history and
 * calls again. An entry is used only while the stored row still has its version: any write
 * elsewhere (another replica, recovery) bumps the version and the session is read afresh.
 */
export class SessionCache {
  readonly #entries = new Map<string, CachedSession>();
  readonly #capacity: number;

  constructor(capacity = DEFAULT_CAPACITY) {
    this.#capacity = capacity;
  }

  get(sessionId: string): CachedSession | undefined {
    return this.#entries.get(sessionId);
  }

  /** Remembers a session right after its changes were committed. */
  put(session: WorkingSession): void {
    this.#entries.delete(session.id);
    this.#entries.set(session.id, {
      row: session.row,
      messages: [...session.messages],
      calls: session.calls.map((call) => call.row),
    });
    if (this.#entries.size > this.#capacity) this.#entries.delete(this.#entries.keys().next().value!);
  }

  forget(sessionId: string): void {
    this.#entries.delete(sessionId);
  }
}
