import { CoreErrors } from '../errors/index.ts';
import type { Store } from '../store/index.ts';
import { type CachedSession, SessionCache } from './session-cache.ts';
import { type SessionRow, sessionRepository, type ToolCallRow } from './session-repository.ts';
import { parseSessionState } from './session-state.ts';
import { SessionVersions } from './session-versions.ts';
import { trackStored } from './tool-call-lifecycle.ts';
import { type LoadedAgent, WorkingSession } from './working-session.ts';

/**
 * Messages on cached sessions that read the stored version first after one found its session
 * changed by another replica: a few model calls repeated per miss at most (1 in 17 messages when
 * every message finds its session changed), none while replicas keep to their own sessions.
 */
const READ_FIRST_AFTER_MISS = 16;

/**
 * Loads sessions for a turn: from this process's cache while the stored version matches, else from
 * the store. Every session it hands out is run by this runtime instance (`runnerId`).
 */
export class SessionLoader {
  readonly #store: Store;
  readonly #agentOf: (name: string) => LoadedAgent;
  readonly #runnerId: string;
  readonly #cache = new SessionCache();
  readonly #versions: SessionVersions;
  #readFirstTurns = 0;

  constructor(store: Store, agentOf: (name: string) => LoadedAgent, runnerId: string) {
    this.#store = store;
    this.#agentOf = agentOf;
    this.#runnerId = runnerId;
    this.#versions = new SessionVersions(store);
  }

  /** The session for one turn. `callId`: a decision's call, read as stored in the same query. */
  async load(sessionId: string, callId?: string): Promise<WorkingSession> {
    const cached = this.#cache.get(sessionId);
    let row: SessionRow | undefined;
    let storedCall: ToolCallRow | undefined;
    if (cached) {
      const stored = await this.#versions.read(sessionId, callId);
      if (stored?.version === cached.row.version) {
        row = cached.row;
        storedCall = stored.call;
      } else this.#cache.forget(sessionId);
    }
    const fresh = row === undefined;
    row ??= await sessionRepository.loadSession(this.#store.db, sessionId);
    if (!row) throw CoreErrors.SESSION_NOT_FOUND({ sessionId });
    const messages = fresh ? await sessionRepository.loadMessages(this.#store.db, sessionId) : [...cached!.messages];
    const calls = fresh ? await sessionRepository.loadToolCalls(this.#store.db, sessionId) : cached!.calls;
    if (fresh) storedCall = calls.find((call) => call.id === callId);
    const working = new WorkingSession(row, parseSessionState(row.state), messages, this.#agentOf(row.agent), calls.map(trackStored));
    if (storedCall) working.loadedCall(storedCall);
    working.runner = this.#runnerId;
    return working;
  }

  /**
   * A decision on the approval this process's cached session waits for, taken without reading the
   * stored version first: each of its checkpoints checks the session's version and the call's
   * status anyway, and nothing leaves the process before the first one (the side effect waits for
   * `executing` to be stored). Saves a read (a transaction of its own) per decision. Undefined when
   * the cache cannot answer: the session is not cached or does not wait for that approval there.
   */
  cachedForDecision(sessionId: string, callId: string): WorkingSession | undefined {
    const cached = this.#cache.get(sessionId);
    if (cached?.row.status !== 'waiting' || !cached.row.interrupt) return undefined;
    const interrupt = JSON.parse(cached.row.interrupt) as { type?: string; callId?: string };
    const call = cached.calls.find((stored) => stored.id === callId);
    if (interrupt.type !== 'approval' || interrupt.callId !== callId || call?.status !== 'proposed') return undefined;
    const working = this.#working(cached);
    working.loadedCall(call);
    return working;
  }

  /**
   * A message's turn on the session as this process last stored it, without reading its version
   * first (issue 32: one transaction fewer per message): the turn's first checkpoint checks the
   * version, and when it finds the session changed elsewhere the turn is taken again on the stored
   * session (`SessionTurns.send`). After such a miss the next messages read first for a while, so a
   * deployment that spreads a session's messages over replicas does not call the model twice for
   * most of them. Undefined when the session is not cached idle or this process reads first now.
   */
  cachedForMessage(sessionId: string): WorkingSession | undefined {
    const cached = this.#cache.get(sessionId);
    // A message on a waiting session is a decision in a chat or a refusal: those read the store first, as before.
    if (cached?.row.status !== 'idle') return undefined;
    if (this.#readFirstTurns > 0) {
      this.#readFirstTurns -= 1;
      return undefined;
    }
    return this.#working(cached);
  }

  /** A message's turn taken from the cache found its session changed elsewhere: the next ones read first. */
  missedUnchecked(): void {
    this.#readFirstTurns = READ_FIRST_AFTER_MISS;
  }

  #working(cached: CachedSession): WorkingSession {
    const working = new WorkingSession(
      cached.row,
      parseSessionState(cached.row.state),
      [...cached.messages],
      this.#agentOf(cached.row.agent),
      cached.calls.map(trackStored),
    );
    working.runner = this.#runnerId;
    return working;
  }

  /** Keeps a session right after its changes were committed. */
  remember(working: WorkingSession): void {
    this.#cache.put(working);
  }

  forget(sessionId: string): void {
    this.#cache.forget(sessionId);
  }
}
