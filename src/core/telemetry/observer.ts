import type { ToolCallStatus } from '../runtime/types.ts';

/**
 * What the runtime reports as it works, for metrics. The runtime calls these and knows nothing of
 * the exporter; `createPrometheusObserver` is the implementation the server uses.
 */
export interface RuntimeObserver {
  /** A turn (a message, a decision or a client's call) ended with this status. */
  turn(agent: string, status: string): void;
  /** A tool call reached `status`. */
  toolCall(tool: string, status: ToolCallStatus): void;
  /** A person decided on an approval `seconds` after it was proposed. */
  approvalWait(seconds: number): void;
  /** A store transaction committed after `ms`, having been re-run `retries` times on conflicts. */
  storeTransaction(ms: number, retries: number): void;
  /** An audit event was sealed into the chain `ms` after it was journaled. */
  auditSealed(ms: number): void;
  /** A live event reached this process's subscribers `ms` after it was stored. */
  liveEventLag(ms: number, relayed: boolean): void;
  /** A model step used these tokens; `costUsd` is null when the model's price is unknown. */
  modelUsage?(provider: string, model: string, inputTokens: number, outputTokens: number, costUsd: number | null): void;
}

export const NO_OBSERVER: RuntimeObserver = {
  turn() {},
  toolCall() {},
  approvalWait() {},
  storeTransaction() {},
  auditSealed() {},
  liveEventLag() {},
};
