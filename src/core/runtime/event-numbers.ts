/** Sessions whose last event number is remembered at most. Default 10,000 (~1 MB). */
const DEFAULT_CAPACITY = 10_000;

/**
 * The last event number this process knows to be stored for each recent session, so that the
 * next checkpoint numbers its events without reading `max(seq)` (issue 32: that read in the insert
 * was the costliest statement of a SQLite round trip). A number is learned only from a committed
 * write, or is 0 for a session this process has just created; a number that is too low (another
 * writer added events) makes the insert collide on `(session_id, seq)`, and the caller forgets it
 * and numbers by reading. It is never too high: nothing deletes events.
 */
export class LastEventNumbers {
  readonly #last = new Map<string, number>();
  readonly #capacity: number;

  constructor(capacity = DEFAULT_CAPACITY) {
    this.#capacity = capacity;
  }

  /** The last stored number of `sessionId`'s events, if known. */
  get(sessionId: string): number | undefined {
    return this.#last.get(sessionId);
  }

  /** `seq` of `sessionId` is stored (committed); keeps the highest seen. */
  stored(sessionId: string, seq: number): void {
    const known = this.#last.get(sessionId);
    if (known !== undefined && known >= seq) return;
    this.#remember(sessionId, seq);
  }

  /** `sessionId` was just created here: it has no events yet. */
  created(sessionId: string): void {
    this.#remember(sessionId, 0);
  }

  /** The number may be wrong (an insert collided, or events were written another way): read it next time. */
  forget(sessionId: string): void {
    this.#last.delete(sessionId);
  }

  #remember(sessionId: string, seq: number): void {
    // Re-inserted so that the Map's order is the order of use: the oldest is evicted first.
    this.#last.delete(sessionId);
    this.#last.set(sessionId, seq);
    if (this.#last.size > this.#capacity) this.#last.delete(this.#last.keys().next().value!);
  }
}
