/**
 * Tells open connections in this process that a person's credentials or roles changed (logout,
 * password change, disable, role change), so they check themselves again at once. Other replicas
 * find out on their next periodic or per-event check.
 */
export class IdentityChanges {
  readonly #listeners = new Map<number, Set<() => void>>();

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
    for (const listener of [...(this.#listeners.get(userId) ?? [])]) listener();
  }
}
