import type { Logger } from 'pino';
import type { AuditLog } from '../audit/index.ts';
import type { CallPolicy, PolicyPrincipal } from '../policy/index.ts';
import type { Store } from '../store/index.ts';
import type { RuntimeObserver } from '../telemetry/index.ts';
import type { SessionEvents } from './events.ts';
import type { Db } from './session-repository.ts';
import type { ToolCallLifecycle } from './tool-call-lifecycle.ts';

/** What processing a tool call needs from the runtime around it. */
export interface ToolCallEnvironment {
  readonly store: Store;
  /** For reads; writes go through the session's unit of work. */
  readonly db: Db;
  readonly audit: AuditLog;
  readonly events: SessionEvents;
  readonly lifecycle: ToolCallLifecycle;
  readonly logger: Logger;
  readonly now: () => Date;
  readonly generateId: () => string;
  readonly approvalTtlMs: number;
  /** Decides run | ask | auto | block and who may approve (the Cedar policy). */
  readonly policy: CallPolicy;
  /** The people the policy is asked about when it names who can approve. */
  approverCandidates(): Promise<readonly PolicyPrincipal[]>;
  /** The people with their teams, for the policy's principals. */
  withTeams(people: readonly PolicyPrincipal[]): Promise<PolicyPrincipal[]>;
  /** The runtime instance recorded on calls it moves to `executing`. */
  readonly runnerId: string;
  /** Receives model token usage for the metrics. */
  readonly observer?: RuntimeObserver;
}
