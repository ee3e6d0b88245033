import { SlotBatcher, type Store } from '../store/index.ts';
import { sessionRepository, type ToolCallRow } from './session-repository.ts';

/** Sessions checked in one query at most. */
const MAX_BATCH = 64;

interface VersionRequest {
  readonly sessionId: string;
  readonly callId?: string;
  readonly resolve: (stored: { version: number; call?: ToolCallRow } | undefined) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Checks that cached sessions are still current: the stored version of a session, and the stored
 * row of the call a decision is about. Checks made while earlier ones are under way share one
 * query (a session's turn begins with one, so at high concurrency they arrive together).
 */
export class SessionVersions {
  readonly #batcher: SlotBatcher<VersionRequest>;

  constructor(store: Store) {
    // Reads leave most of the PostgreSQL pool to commits; SQLite has one connection.
    const slots = store.dialect === 'postgres' ? Math.max(1, Math.floor(store.poolSize / 4)) : 1;
    this.#batcher = new SlotBatcher(slots, MAX_BATCH, async (batch) => {
      try {
        const found = await sessionRepository.storedVersions(store.db, batch);
        for (const request of batch) {
          const stored = found.get(request.sessionId);
          const call = request.callId === undefined ? undefined : stored?.calls.get(request.callId);
          request.resolve(stored && (call ? { version: stored.version, call } : { version: stored.version }));
        }
      } catch (error) {
        for (const request of batch) request.reject(error);
      }
    });
  }

  /** The session's stored version and, with `callId`, that call's stored row; undefined when the session is gone. */
  read(sessionId: string, callId?: string): Promise<{ version: number; call?: ToolCallRow } | undefined> {
    return new Promise((resolve, reject) => this.#batcher.add({ sessionId, ...(callId === undefined ? {} : { callId }), resolve, reject }));
  }
}
