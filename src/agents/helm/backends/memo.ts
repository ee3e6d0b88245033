/**
 * Promises by key, bounded in number and optionally in age. A failed load is forgotten at once, so
 * an unreachable cluster or a 403 is asked again next time and never answered from memory.
 */
export class Memo<T> {
  readonly #entries = new Map<string, { readonly at: number; readonly value: Promise<T> }>();
  readonly #maxEntries: number;
  readonly #maxAgeMs: number;
  readonly #now: () => number;

  constructor(options: { readonly maxEntries: number; readonly maxAgeMs?: number; readonly now?: () => number }) {
    this.#maxEntries = options.maxEntries;
    this.#maxAgeMs = options.maxAgeMs ?? Number.POSITIVE_INFINITY;
    this.#now = options.now ?? Date.now;
  }

  get(key: string, load: () => Promise<T>): Promise<T> {
    const now = this.#now();
    const cached = this.#entries.get(key);
    if (cached && now - cached.at <= this.#maxAgeMs) return cached.value;
    this.#entries.delete(key);
    const value = load();
    this.#entries.set(key, { at: now, value });
    value.catch(() => {
      if (this.#entries.get(key)?.value === value) this.#entries.delete(key);
    });
    // Oldest first: a Map iterates in insertion order.
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.#maxEntries) break;
      this.#entries.delete(oldest);
    }
    return value;
  }

  clear(): void {
    this.#entries.clear();
  }
}
