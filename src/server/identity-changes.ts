import type { Store } from '../core/store/index.ts';

/** The PostgreSQL channel replicas tell each other on (payload: the user id). */
const CHANNEL = 'opsgate_identity_changes';

/**
 * Tells open connections that a person's credentials or roles changed (logout, password change,
 * disable, role change), so they check themselves again at once. On PostgreSQL the news reaches
 * every replica through LISTEN/NOTIFY; if a notification is lost, the next event or the periodic
 * check still closes the connection.
 */
export class IdentityChanges {
  readonly #listeners = new Map<number, Set<() => void>>();
  readonly #store: Store | undefined;
  #stopListening: (() => Promise<void>) | undefined;

  private constructor(store: Store | undefined) {
    this.#store = store;
  }

  /** Starts hearing other replicas when the store can tell them (PostgreSQL). */
  static async start(store?: Store): Promise<IdentityChanges> {
    const changes = new IdentityChanges(store);
    if (store?.notifications) {
      changes.#stopListening = await store.notifications.listen(CHANNEL, (payload) => changes.#tell(Number(payload)));
    }
    return changes;
  }

  subscribe(userId: number, listener: () => void): () => void {
    let set = this.#listeners.get(userId);
    if (!set) {
      set = new Set();
      this.#listeners.set(userId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.#listeners.delete(userId);
    };
  }

  changed(userId: number): void {
    this.#tell(userId);
    void this.#store?.notifications?.notify(CHANNEL, String(userId)).catch(() => {});
  }

  #tell(userId: number): void {
    for (const listener of [...(this.#listeners.get(userId) ?? [])]) listener();
  }

  async close(): Promise<void> {
    await this.#stopListening?.();
  }
}
