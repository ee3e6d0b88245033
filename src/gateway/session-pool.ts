import type { Identity } from '../core/identity/index.ts';
import type { Runtime } from '../core/runtime/index.ts';

/** What a gateway call's session tells the policy (`context.session.via`); reads on the fast path say the same. */
export const GATEWAY_SESSION_OPTIONS: Readonly<Record<string, unknown>> = { via: 'gateway' };

/** Calls per runtime session before a fresh one is started (a session's history is loaded with it). */
const CALLS_PER_SESSION = 25;

/**
 * Runtime sessions for gateway calls, per person and upstream. A runtime session runs one call at
 * a time, so concurrent calls take different sessions; a call left waiting for approval keeps its
 * session until it is collected.
 */
export class SessionPool {
  readonly #runtime: Runtime;
  readonly #idle = new Map<string, Array<{ id: string; calls: number }>>();

  constructor(runtime: Runtime) {
    this.#runtime = runtime;
  }

  async acquire(identity: Identity, agent: string): Promise<{ id: string; calls: number }> {
    const idle = this.#idle.get(`${identity.userId}/${agent}`)?.pop();
    if (idle) return idle;
    const session = await this.#runtime.startSession({
      agent,
      identity,
      title: `${agent} calls through the MCP gateway`,
      options: GATEWAY_SESSION_OPTIONS,
    });
    return { id: session.id, calls: 0 };
  }

  release(identity: Identity, agent: string, session: { id: string; calls: number }): void {
    if (session.calls + 1 >= CALLS_PER_SESSION) return;
    const key = `${identity.userId}/${agent}`;
    const list = this.#idle.get(key) ?? [];
    list.push({ id: session.id, calls: session.calls + 1 });
    this.#idle.set(key, list);
  }
}
