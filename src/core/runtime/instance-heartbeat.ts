import type { Logger } from 'pino';
import type { AuditLog } from '../audit/index.ts';
import { type Store, shareCommitSlots } from '../store/index.ts';
import { type RecoveryReport, recoverInterruptedCalls } from './recovery.ts';
import type { RuntimeInstance } from './runtime-instance.ts';
import type { ToolCallLifecycle } from './tool-call-lifecycle.ts';
import type { WorkingSession } from './working-session.ts';

export interface InstanceHeartbeatOptions {
  readonly store: Store;
  /** Its background sealer shares the sealing with the other replicas. */
  readonly audit: Pick<AuditLog, 'shareSealing'>;
  readonly instance: RuntimeInstance;
  readonly lifecycle: ToolCallLifecycle;
  readonly now: () => Date;
  readonly load: (sessionId: string) => Promise<WorkingSession>;
  readonly logger: Logger;
  readonly intervalMs: number;
}

/**
 * This runtime instance's life in the store: it registers, says it is alive every `intervalMs`, and
 * recovers what dead instances left `executing` or `running` — at start, and at each beat when it
 * leads (the live instance with the lowest id), so the recovery reads (two scans of calls and
 * sessions by status) cost one replica's per beat, not every replica's. Live replicas keep theirs,
 * and the replicas alive share the commit slots and the sealing.
 */
export class InstanceHeartbeat {
  readonly #options: InstanceHeartbeatOptions;
  #timer: ReturnType<typeof setInterval> | undefined;
  #recovering = false;

  constructor(options: InstanceHeartbeatOptions) {
    this.#options = options;
  }

  /** Registers the instance, recovers once, then beats until `stop`. */
  async start(): Promise<void> {
    await this.#options.instance.register();
    await this.recover();
    this.#timer = setInterval(() => this.#beat(), this.#options.intervalMs);
    this.#timer.unref();
  }

  async recover(): Promise<RecoveryReport> {
    return this.#recoverFor(this.#shareWith(await this.#options.instance.aliveInstances()));
  }

  /** The live instances (this one included) share the commit slots and the sealing. */
  #shareWith(alive: Set<string>): Set<string> {
    shareCommitSlots(this.#options.store, alive.size);
    this.#options.audit.shareSealing(alive.size);
    return alive;
  }

  #recoverFor(alive: ReadonlySet<string>): Promise<RecoveryReport> {
    const { store, lifecycle, now, load } = this.#options;
    return recoverInterruptedCalls({ store, lifecycle, now, load, alive });
  }

  /** Every instance reads the same live set, so one leads; when it dies, the next lowest id does. */
  #leads(alive: ReadonlySet<string>): boolean {
    const id = this.#options.instance.id;
    for (const other of alive) if (other < id) return false;
    return true;
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#options.instance.unregister().catch(() => {});
  }

  #beat(): void {
    if (this.#recovering) return;
    this.#recovering = true;
    void (async () => {
      const alive = this.#shareWith(await this.#options.instance.beat());
      if (this.#leads(alive)) await this.#recoverFor(alive);
    })()
      .catch((error: unknown) => this.#options.logger.warn({ err: error }, 'heartbeat or recovery failed'))
      .finally(() => {
        this.#recovering = false;
      });
  }
}
