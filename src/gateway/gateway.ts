import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AgentDefinition } from '../core/agent/index.ts';
import type { Runtime } from '../core/runtime/index.ts';
import type { GatewayConfig } from './config.ts';
import { MinuteWindows } from './rate-limits.ts';
import { SessionPool } from './session-pool.ts';
import type { ChangedTool } from './tool-definitions.ts';
import { Upstream, type UpstreamStatus } from './upstream.ts';
import { upstreamAgent } from './upstream-agent.ts';

/** How long a raw result waits to be handed to its client before it is dropped. */
const RESULT_TTL_MS = 10 * 60 * 1000;

/**
 * The MCP gateway's state in one process: the upstream connections, the agents that guard them,
 * the exact results of calls run here (by call id) and the rate limits. Create it, pass `agents`
 * to the runtime, then `attach` the runtime.
 */
export class Gateway {
  readonly config: GatewayConfig;
  readonly upstreams: ReadonlyMap<string, Upstream>;
  readonly agents: readonly AgentDefinition[];
  readonly perUser: MinuteWindows;
  readonly perTool: MinuteWindows;
  readonly #results = new Map<string, { result: CallToolResult; at: number }>();
  readonly #changeListeners = new Set<(change: ChangedTool) => void>();
  #runtime: Runtime | undefined;
  #pool: SessionPool | undefined;

  constructor(config: GatewayConfig) {
    this.config = config;
    this.upstreams = new Map(config.upstreams.map((u) => [u.name, new Upstream(u)]));
    this.agents = [...this.upstreams.values()].map((upstream) =>
      upstreamAgent({
        upstream,
        maxResultBytes: config.limits.maxResultBytes,
        onResult: (callId, result) => this.#keepResult(callId, result),
        onDefinitionChanged: (change) => {
          for (const listener of this.#changeListeners) listener(change);
        },
      }),
    );
    this.perUser = new MinuteWindows(config.limits.perUserPerMinute);
    this.perTool = new MinuteWindows(config.limits.perToolPerMinute);
  }

  /** `listener` hears each tool definition change when it is first seen (webhook and Slack notices to admins). */
  onDefinitionChanged(listener: (change: ChangedTool) => void): () => void {
    this.#changeListeners.add(listener);
    return () => this.#changeListeners.delete(listener);
  }

  attach(runtime: Runtime): void {
    this.#runtime = runtime;
    this.#pool = new SessionPool(runtime);
  }

  get runtime(): Runtime {
    if (!this.#runtime) throw new Error('the gateway is not attached to a runtime');
    return this.#runtime;
  }

  get pool(): SessionPool {
    if (!this.#pool) throw new Error('the gateway is not attached to a runtime');
    return this.#pool;
  }

  #keepResult(callId: string, result: CallToolResult): void {
    const now = Date.now();
    this.#results.set(callId, { result, at: now });
    for (const [id, kept] of this.#results) {
      if (now - kept.at < RESULT_TTL_MS) break;
      this.#results.delete(id);
    }
  }

  /** The exact result of a call that ran in this process, once. */
  takeResult(callId: string): CallToolResult | undefined {
    const kept = this.#results.get(callId);
    this.#results.delete(callId);
    return kept?.result;
  }

  status(): UpstreamStatus[] {
    return [...this.upstreams.values()].map((u) => u.status());
  }

  async close(): Promise<void> {
    for (const upstream of this.upstreams.values()) await upstream.close();
  }
}
