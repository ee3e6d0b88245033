import { ListeningWhileNeeded, type Store } from '../core/store/index.ts';

/** The PostgreSQL channel replicas tell each other on (payload: the user id). */
const CHANNEL = 'opsgate_identity_changes';

/**
 * Tells open connections that a person's credentials or roles changed (logout, password change,
 * disable, role change), so they check themselves again at once. On PostgreSQL the news reaches
 * every replica through LISTEN/NOTIFY — a replica listens only while it has open connections to
 * tell; if a notification is lost, the next event or the periodic check still closes the connection.
 */
export class IdentityChanges {
  readonly #listeners = new Map<number, Set<() => void>>();
  readonly #store: Store | undefined;
  readonly #listening: ListeningWhileNeeded;

  constructor(store?: Store) {
    this.#store = store;
    this.#listening = new ListeningWhileNeeded(store?.notifications, CHANNEL, (payload) => this.#tell(Number(payload)));
  }

  /** Calls `listener` when the person's credentials or roles change, here or (PostgreSQL) on another replica. */
  subscribe(userId: number, listener: () => void): () => void {
    let set = this.#listeners.get(userId);
    if (!set) {
      set = new Set();
      this.#listeners.set(userId, set);
    }
    set.add(listener);
    this.#listening.need();
    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      set.delete(listener);
      if (set.size === 0) this.#listeners.delete(userId);
      this.#listening.release();
    };
  }

  /** Resolves once other replicas' news is heard here (at once when nobody subscribed, or on SQLite). */
  listening(): Promise<void> {
    return this.#listening.ready();
  }

  changed(userId: number): void {
    this.#tell(userId);
    void this.#store?.notifications?.notify(CHANNEL, String(userId)).catch(() => {});
  }

  #tell(userId: number): void {
    for (const listener of [...(this.#listeners.get(userId) ?? [])]) listener();
  }

  async close(): Promise<void> {
    await this.#listening.close();
  }
}
