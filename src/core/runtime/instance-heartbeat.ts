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
 * each time recovers what dead instances left `executing` or `running`. Live replicas keep theirs,
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
    const { store, audit, instance, lifecycle, now, load } = this.#options;
    const alive = await instance.aliveInstances();
    shareCommitSlots(store, alive.size);
    audit.shareSealing(alive.size);
    return recoverInterruptedCalls({ store, lifecycle, now, load, alive });
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#options.instance.unregister().catch(() => {});
  }

  #beat(): void {
    if (this.#recovering) return;
    this.#recovering = true;
    void (async () => {
      await this.#options.instance.heartbeat();
      await this.recover();
    })()
      .catch((error: unknown) => this.#options.logger.warn({ err: error }, 'heartbeat or recovery failed'))
      .finally(() => {
        this.#recovering = false;
      });
  }
}
