/** A fixed one-minute window per key: enough to stop a runaway client, cheap on every call. */
export class MinuteWindows {
  readonly #limit: number;
  readonly #windows = new Map<string, { start: number; count: number }>();
  readonly #now: () => number;

  constructor(limit: number, now: () => number = Date.now) {
    this.#limit = limit;
    this.#now = now;
  }

  /** Counts one call for `key`; returns the seconds to wait when the window is full, else undefined. */
  take(key: string): number | undefined {
    const now = this.#now();
    let window = this.#windows.get(key);
    if (!window || now - window.start >= 60_000) {
      window = { start: now, count: 0 };
      this.#windows.set(key, window);
      if (this.#windows.size > 10_000) this.#forgetOld(now);
    }
    if (window.count >= this.#limit) return Math.max(1, Math.ceil((window.start + 60_000 - now) / 1000));
    window.count++;
    return undefined;
  }

  #forgetOld(now: number): void {
    for (const [key, window] of this.#windows) if (now - window.start >= 60_000) this.#windows.delete(key);
  }
}
