/** One turn's place among the turns this process runs on a session. */
export interface LocalTurn {
  /** No other turn on the session ran in this process at any time while this one did. */
  readonly alone: boolean;
  end(): void;
}

/**
 * The turns this process has under way, per session. A message's turn is taken on the remembered
 * session without reading its version only while it runs alone here, and taken again after its
 * checkpoint found the session changed only if it still ran alone: a conflict with a turn of this
 * process is the busy session it always was (409 SESSION_BUSY, never a second run), not a stale
 * memory of another replica's write.
 */
export class LocalTurns {
  readonly #active = new Map<string, { count: number; crowded: boolean }>();

  begin(sessionId: string): LocalTurn {
    let entry = this.#active.get(sessionId);
    if (entry) entry.crowded = true;
    else {
      entry = { count: 0, crowded: false };
      this.#active.set(sessionId, entry);
    }
    entry.count += 1;
    const held = entry;
    let ended = false;
    return {
      get alone() {
        return !held.crowded;
      },
      end: () => {
        if (ended) return;
        ended = true;
        held.count -= 1;
        if (held.count === 0) this.#active.delete(sessionId);
      },
    };
  }
}
