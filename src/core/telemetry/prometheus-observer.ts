import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import type { RuntimeObserver } from './observer.ts';

const LATENCY_BUCKETS_SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const WAIT_BUCKETS_SECONDS = [1, 5, 15, 30, 60, 300, 900, 3600, 4 * 3600, 24 * 3600];

export interface PrometheusObserver extends RuntimeObserver {
  readonly registry: Registry;
  /** The metrics in Prometheus' text format. */
  render(): Promise<string>;
}

/** Prometheus metrics for one process (its own registry, with Node's default process metrics). */
export function createPrometheusObserver(): PrometheusObserver {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'opsgate_' });
  const registers = [registry];
  const turns = new Counter({
    name: 'opsgate_turns_total',
    help: 'Turns ended, by agent and status.',
    labelNames: ['agent', 'status'],
    registers,
  });
  const toolCalls = new Counter({
    name: 'opsgate_tool_calls_total',
    help: 'Tool calls reaching each status, by tool.',
    labelNames: ['tool', 'status'],
    registers,
  });
  const approvalWait = new Histogram({
    name: 'opsgate_approval_wait_seconds',
    help: 'Time from a proposal to the decision on it.',
    buckets: WAIT_BUCKETS_SECONDS,
    registers,
  });
  const storeTransactions = new Histogram({
    name: 'opsgate_store_transaction_seconds',
    help: 'Duration of store transactions, retries included.',
    buckets: LATENCY_BUCKETS_SECONDS,
    registers,
  });
  const storeConflicts = new Counter({
    name: 'opsgate_store_conflicts_total',
    help: 'Transactions re-run after a conflict with another writer (never surfaced).',
    registers,
  });
  const auditSealed = new Histogram({
    name: 'opsgate_audit_append_seconds',
    help: 'Time from journaling an audit event to sealing it into the hash chain.',
    buckets: LATENCY_BUCKETS_SECONDS,
    registers,
  });
  const fanOutLag = new Histogram({
    name: 'opsgate_live_event_fanout_lag_seconds',
    help: 'Time from storing a live event to handing it to this process’s subscribers; relayed = from another replica.',
    labelNames: ['relayed'],
    buckets: LATENCY_BUCKETS_SECONDS,
    registers,
  });
  const modelTokens = new Counter({
    name: 'opsgate_model_tokens_total',
    help: 'Tokens sent to (input) and received from (output) language models, by provider and model.',
    labelNames: ['provider', 'model', 'direction'],
    registers,
  });
  const modelCost = new Counter({
    name: 'opsgate_model_cost_usd_total',
    help: 'What model steps cost in US dollars at list price (steps of models without a known price are not counted).',
    labelNames: ['provider', 'model'],
    registers,
  });
  return {
    registry,
    render: () => registry.metrics(),
    turn: (agent, status) => turns.inc({ agent, status }),
    toolCall: (tool, status) => toolCalls.inc({ tool, status }),
    approvalWait: (seconds) => approvalWait.observe(seconds),
    storeTransaction: (ms, retries) => {
      storeTransactions.observe(ms / 1000);
      if (retries > 0) storeConflicts.inc(retries);
    },
    auditSealed: (ms) => auditSealed.observe(ms / 1000),
    liveEventLag: (ms, relayed) => fanOutLag.observe({ relayed: String(relayed) }, ms / 1000),
    modelUsage: (provider, model, inputTokens, outputTokens, costUsd) => {
      modelTokens.inc({ provider, model, direction: 'input' }, inputTokens);
      modelTokens.inc({ provider, model, direction: 'output' }, outputTokens);
      if (costUsd !== null) modelCost.inc({ provider, model }, costUsd);
    },
  };
}
