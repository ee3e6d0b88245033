import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type CallToolResult, ErrorCode, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { BrokenCircuitError, type CircuitBreakerPolicy, CircuitState, ConsecutiveBreaker, circuitBreaker, handleWhen } from 'cockatiel';
import type { OpsgateError } from '../core/errors/index.ts';
import type { UpstreamConfig } from './config.ts';
import { GatewayErrors } from './gateway-errors.ts';
import { masked } from './mask.ts';
import { definitionHash } from './tool-definitions.ts';
import { keepAliveFetch } from './upstream-fetch.ts';

/** What an admin sees of one upstream. */
export interface UpstreamStatus {
  readonly name: string;
  readonly transport: 'stdio' | 'http';
  /** `up`: connected; `down`: not connected (it reconnects on the next call); `open`: the circuit breaker refuses calls for now. */
  readonly state: 'up' | 'down' | 'open';
  readonly tools: number;
  readonly calls: number;
  readonly failures: number;
  readonly lastError?: string;
  readonly connectedAt?: string;
  /** The process id of a running stdio server. */
  readonly pid?: number;
}

/** Failures of the connection (not a tool's own error result) open the breaker. */
class ConnectionFailure extends Error {}

const BREAKER_THRESHOLD = 3;
const BREAKER_HALF_OPEN_MS = 5_000;

/**
 * One upstream MCP server: a stdio command (started, and restarted after it dies, by the
 * gateway) or a Streamable HTTP URL. Calls go through a timeout and a circuit breaker; a call
 * that was sent and then lost its connection is reported as of unknown outcome, never retried.
 */
export class Upstream {
  readonly config: UpstreamConfig;
  #client: Client | undefined;
  #connecting: Promise<Client> | undefined;
  #tools: Tool[] = [];
  /** Tools whose definition changed since it was accepted: neither offered nor called. */
  #held = new Set<string>();
  #review: ((tools: readonly Tool[]) => Promise<Set<string>>) | undefined;
  readonly #listeners = new Set<(tools: readonly Tool[]) => void>();
  /** The offered tools' definitions as last announced, so listeners hear of a change once. */
  #announced = '';
  /** An HTTP upstream's connections, kept alive between calls and reconnects. */
  readonly #fetch = keepAliveFetch();
  #calls = 0;
  #failures = 0;
  #lastError: string | undefined;
  #connectedAt: string | undefined;
  #pid: number | undefined;
  readonly #breaker: CircuitBreakerPolicy;

  constructor(config: UpstreamConfig) {
    this.config = config;
    this.#breaker = circuitBreaker(
      handleWhen((error) => error instanceof ConnectionFailure),
      { halfOpenAfter: BREAKER_HALF_OPEN_MS, breaker: new ConsecutiveBreaker(BREAKER_THRESHOLD) },
    );
  }

  get name(): string {
    return this.config.name;
  }

  /** The upstream's tools as it last listed them, without those held back for a changed definition. */
  get tools(): readonly Tool[] {
    return this.#held.size === 0 ? this.#tools : this.#tools.filter((tool) => !this.#held.has(tool.name));
  }

  /** The tools held back because their definition changed since it was accepted. */
  get held(): ReadonlySet<string> {
    return this.#held;
  }

  /** Checks every listing against the accepted definitions (tool pinning); the answer names the tools to hold back. */
  reviewWith(review: (tools: readonly Tool[]) => Promise<Set<string>>): void {
    this.#review = review;
  }

  /** Checks the last listing again, e.g. after an admin accepted a change. */
  async review(): Promise<void> {
    if (this.#review) this.#held = await this.#review(this.#tools);
    this.#announce();
  }

  /**
   * `listener` hears the offered tools each time they change: the upstream came up after being
   * down at start (F4), it reconnected with other tools, or an admin accepted a changed one.
   * Returns the way to stop listening.
   */
  onToolsChanged(listener: (tools: readonly Tool[]) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #announce(): void {
    const offered = this.tools;
    const signature = offered.map((tool) => definitionHash(tool)).join(',');
    if (signature === this.#announced) return;
    this.#announced = signature;
    for (const listener of this.#listeners) listener(offered);
  }

  /**
   * Connects an upstream that is down (the breaker paces the attempts) and waits at most `waitMs`
   * for it; a slower connect goes on and announces its tools when it lands.
   */
  async tryConnect(waitMs: number): Promise<void> {
    if (this.#client) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.start().then(
        () => undefined,
        () => undefined,
      ),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, waitMs);
      }),
    ]);
    clearTimeout(timer);
  }

  #transport(): Transport {
    const config = this.config;
    if ('command' in config) {
      return new StdioClientTransport({
        command: config.command,
        args: config.args,
        env: { ...getDefaultEnvironment(), ...config.env },
        ...(config.cwd ? { cwd: config.cwd } : {}),
        stderr: 'ignore',
      });
    }
    return new StreamableHTTPClientTransport(new URL(config.url), {
      requestInit: { headers: config.headers },
      fetch: this.#fetch.fetch,
      // A broken stream is not resumed: the upstream is reconnected (and its tools reviewed) anew.
      reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 1_000, maxReconnectionDelay: 1_000, reconnectionDelayGrowFactor: 1 },
    });
  }

  /** The connected client; connects (or restarts a stdio server) when there is none. */
  async client(): Promise<Client> {
    if (this.#client) return this.#client;
    this.#connecting ??= (async () => {
      const client = new Client({ name: `opsgate-gateway/${this.name}`, version: '0.1.0' });
      const transport = this.#transport();
      try {
        await client.connect(transport, { timeout: this.config.timeoutMs });
        this.#tools = toolsWithUniqueNames(await this.#listAllTools(client));
        await this.review();
      } catch (error) {
        await client.close().catch(() => {});
        this.#lastError = masked(errorText(error), this.config.mask);
        throw new ConnectionFailure(this.#lastError);
      }
      client.onclose = () => {
        if (this.#client === client) this.#client = undefined;
      };
      // A Streamable HTTP upstream that dies mid-answer only breaks the answer's SSE stream, and the
      // call would wait for its timeout (F11). Closing now answers what is in flight: outcome unknown.
      if (!(transport instanceof StdioClientTransport))
        client.onerror = (error) => {
          if (this.#client === client && error.message.startsWith('SSE stream disconnected')) void this.#restart();
        };
      this.#client = client;
      this.#connectedAt = new Date().toISOString();
      this.#pid = transport instanceof StdioClientTransport ? (transport.pid ?? undefined) : undefined;
      return client;
    })().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  /** Every page of the upstream's tool list. */
  async #listAllTools(client: Client): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: this.config.timeoutMs });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  }

  /** Connects and lists the tools; a typed error when the upstream cannot be reached. */
  async start(): Promise<readonly Tool[]> {
    try {
      await this.#breaker.execute(() => this.client());
    } catch (error) {
      throw this.#unavailable(error);
    }
    return this.tools;
  }

  #unavailable(error: unknown): OpsgateError {
    const detail =
      error instanceof BrokenCircuitError
        ? `it failed ${BREAKER_THRESHOLD} times in a row; calls pause for a few seconds`
        : masked(errorText(error), this.config.mask);
    return GatewayErrors.GATEWAY_UPSTREAM_UNAVAILABLE({ upstream: this.name, detail });
  }

  /**
   * Calls one tool. Connection problems before the request was sent: `GATEWAY_UPSTREAM_UNAVAILABLE`
   * (nothing ran). Lost after it was sent, or no answer in time: the outcome is unknown.
   */
  async call(tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallToolResult> {
    this.#calls++;
    let client: Client;
    try {
      client = await this.#breaker.execute(() => this.client());
    } catch (error) {
      this.#failures++;
      throw this.#unavailable(error);
    }
    // Checked after connecting: a reconnect lists (and reviews) the tools anew.
    if (this.#held.has(tool)) throw GatewayErrors.GATEWAY_TOOL_CHANGED({ upstream: this.name, tool });
    try {
      const result = await this.#breaker.execute(async () => {
        try {
          return await client.callTool({ name: tool, arguments: args }, undefined, {
            timeout: this.config.timeoutMs,
            ...(signal ? { signal } : {}),
          });
        } catch (error) {
          if (error instanceof McpError && (error.code === ErrorCode.ConnectionClosed || error.code === ErrorCode.RequestTimeout))
            throw new ConnectionFailure(error.message, { cause: error });
          // An HTTP upstream that could not be reached or dropped the connection.
          if (error instanceof TypeError && error.message === 'fetch failed')
            throw new ConnectionFailure(errorText(error.cause ?? error), { cause: error });
          throw error;
        }
      });
      return result as CallToolResult;
    } catch (error) {
      this.#failures++;
      this.#lastError = masked(errorText(error), this.config.mask);
      const cause = error instanceof ConnectionFailure ? error.cause : error;
      if (cause instanceof McpError && cause.code === ErrorCode.RequestTimeout) {
        // A timed-out stdio server may be stuck: restart it for the next call.
        if (this.#client === client) await this.#restart();
        throw GatewayErrors.GATEWAY_UPSTREAM_TIMEOUT({ upstream: this.name, tool, timeoutMs: this.config.timeoutMs, outcomeUnknown: true });
      }
      if (error instanceof ConnectionFailure) {
        if (this.#client === client) await this.#restart();
        // Refused before anything was sent: nothing ran, so the call may simply be made again.
        if (refused(cause)) throw GatewayErrors.GATEWAY_UPSTREAM_UNAVAILABLE({ upstream: this.name, detail: this.#lastError });
        throw GatewayErrors.GATEWAY_OUTCOME_UNKNOWN({ upstream: this.name, tool, detail: this.#lastError, outcomeUnknown: true });
      }
      // The upstream refused the request (e.g. invalid params): its words may echo a secret.
      throw GatewayErrors.GATEWAY_TOOL_ERROR({ tool, upstream: this.name, detail: this.#lastError });
    }
  }

  async #restart(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    await client?.close().catch(() => {});
  }

  status(): UpstreamStatus {
    const open = this.#breaker.state === CircuitState.Open;
    return {
      name: this.name,
      transport: 'command' in this.config ? 'stdio' : 'http',
      state: open ? 'open' : this.#client ? 'up' : 'down',
      tools: this.#tools.length,
      calls: this.#calls,
      failures: this.#failures,
      ...(this.#lastError ? { lastError: this.#lastError } : {}),
      ...(this.#connectedAt ? { connectedAt: this.#connectedAt } : {}),
      ...(this.#client && this.#pid ? { pid: this.#pid } : {}),
    };
  }

  async close(): Promise<void> {
    await this.#restart();
    this.#fetch.close();
  }
}

/**
 * An upstream that lists one name twice would have the client see one definition and run
 * another (M4-new): the whole upstream is refused until it is fixed.
 */
function toolsWithUniqueNames(tools: Tool[]): Tool[] {
  const seen = new Set<string>();
  for (const tool of tools) {
    if (seen.has(tool.name))
      throw new Error(`it lists the tool "${tool.name}" twice, so opsgate cannot tell which one a call means; fix the upstream`);
    seen.add(tool.name);
  }
  return tools;
}

function refused(error: unknown): boolean {
  const cause = error instanceof Error ? (error.cause as { code?: string } | undefined) : undefined;
  return cause?.code === 'ECONNREFUSED';
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
