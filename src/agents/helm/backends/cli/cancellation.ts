import { AsyncLocalStorage } from 'node:async_hooks';

const current = new AsyncLocalStorage<AbortSignal>();

/**
 * Runs `work` so that every `helm`/`kubectl` process it starts is killed when `signal` aborts. The
 * MCP server binds each tool call's cancellation here, so a cancelled or abandoned call never
 * leaves a `helm upgrade` running behind the user's back (and the next one meeting `pending-upgrade`).
 */
export function withCancellation<T>(signal: AbortSignal | undefined, work: () => Promise<T>): Promise<T> {
  return signal ? current.run(signal, work) : work();
}

/** The cancellation of the tool call this code runs for, if any. */
export function cancellationSignal(): AbortSignal | undefined {
  return current.getStore();
}
