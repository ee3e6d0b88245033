import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/**
 * What the runtime reports as it works. The core calls these; the Prometheus implementation
 * below records them. Durations are in milliseconds.
 */
export interface RuntimeMetrics {
  /** A turn (send, decide, direct call) ended: `completed`, `waiting`, `step_limit` or `error`. */
  turn(status: string): void;
  /** A tool call moved to `status` (the lifecycle's transition). */
  toolCallTransition(status: string): void;
  /** Time from a call's proposal to the person's decision. */
  approvalWait(ms: number): void;
  /** One store transaction; `retries` is how many times a conflict made it run again. */
  storeTransaction(ms: number, retries: number): void;
  /** Time from journaling an audit event to sealing it into the hash chain. */
  auditAppend(ms: number): void;
  /** Time from a live event's creation to its delivery to this process's subscribers. */
  liveEventLag(ms: number): void;
}

export interface OpsgateMetrics extends RuntimeMetrics {
  readonly registry: Registry;
  /** The Prometheus text exposition of every metric. */
  render(): Promise<string>;
  readonly contentType: string;
}

export interface MetricsOptions {
  /** Where the metrics are registered. Default: a new registry (nothing global). */
  readonly registry?: Registry;
  /** Also collect Node's process metrics (CPU, memory, event-loop lag). Default true. */
  readonly processMetrics?: boolean;
}

const seconds = (ms: number) => ms / 1000;
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const WAIT_BUCKETS = [0.1, 0.5, 1, 5, 15, 30, 60, 300, 900, 3600, 14400, 86400];

/** The metric definitions, all prefixed `opsgate_`, in their own registry. No side effect at import. */
export function createMetrics(options: MetricsOptions = {}): OpsgateMetrics {
  const registry = options.registry ?? new Registry();
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry, prefix: 'opsgate_' });
  const turns = new Counter({
    name: 'opsgate_turns_total',
    help: 'Turns ended, by outcome.',
    labelNames: ['status'],
    registers: [registry],
  });
  const toolCalls = new Counter({
    name: 'opsgate_tool_calls_total',
    help: 'Tool-call status changes, by the status reached.',
    labelNames: ['status'],
    registers: [registry],
  });
  const approvalWait = new Histogram({
    name: 'opsgate_approval_wait_seconds',
    help: 'Time from a proposal to the decision on it.',
    buckets: WAIT_BUCKETS,
    registers: [registry],
  });
  const storeTransactions = new Histogram({
    name: 'opsgate_store_transaction_seconds',
    help: 'Duration of store transactions, retries included.',
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const storeConflicts = new Counter({
    name: 'opsgate_store_conflicts_total',
    help: 'Store transactions run again after a conflict with another writer.',
    registers: [registry],
  });
  const auditAppends = new Histogram({
    name: 'opsgate_audit_append_seconds',
    help: 'Time from journaling an audit event to sealing it into the hash chain.',
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const liveEventLag = new Histogram({
    name: 'opsgate_live_event_lag_seconds',
    help: 'Time from a live event being stored to its delivery to subscribers in this process.',
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  return {
    registry,
    contentType: registry.contentType,
    render: () => registry.metrics(),
    turn: (status) => turns.inc({ status }),
    toolCallTransition: (status) => toolCalls.inc({ status }),
    approvalWait: (ms) => approvalWait.observe(seconds(ms)),
    storeTransaction(ms, retries) {
      storeTransactions.observe(seconds(ms));
      if (retries > 0) storeConflicts.inc(retries);
    },
    auditAppend: (ms) => auditAppends.observe(seconds(ms)),
    liveEventLag: (ms) => liveEventLag.observe(seconds(Math.max(0, ms))),
  };
}
