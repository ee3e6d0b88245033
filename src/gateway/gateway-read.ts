import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Identity } from '../core/identity/index.ts';
import { textResult } from './call-results.ts';
import type { Gateway } from './gateway.ts';
import { GatewayErrors } from './gateway-errors.ts';
import { GATEWAY_SESSION_OPTIONS } from './session-pool.ts';
import { NAMESPACE_SEPARATOR, upstreamAgentName } from './upstream-agent.ts';

/** Counts the call against the person's and the tool's minute windows; throws `GATEWAY_RATE_LIMITED` when either is full. */
export function takeRateLimits(gateway: Gateway, identity: Identity, name: string): void {
  const userWait = gateway.perUser.take(`${identity.userId}`);
  if (userWait !== undefined) throw GatewayErrors.GATEWAY_RATE_LIMITED({ scope: 'per person', retryAfterSeconds: userWait });
  const toolWait = gateway.perTool.take(`${identity.userId}/${name}`);
  if (toolWait !== undefined) throw GatewayErrors.GATEWAY_RATE_LIMITED({ scope: `per person for ${name}`, retryAfterSeconds: toolWait });
}

/**
 * The read fast path of a gateway call: when `name` is an offered tool of an upstream that is up,
 * not held for review nor denied, and the runtime plans it as a read it runs at once (role, input,
 * identity binding, policy `run`), this returns how to run it — take the rate limits, run, answer
 * with the upstream's exact result. Undefined for anything else: nothing was counted, run or
 * recorded, and the caller takes the full path, which checks and records it as always.
 */
export async function planGatewayRead(
  gateway: Gateway,
  identity: Identity,
  name: string,
  args: Record<string, unknown>,
): Promise<(() => Promise<CallToolResult>) | undefined> {
  const at = name.indexOf(NAMESPACE_SEPARATOR);
  const upstream = at > 0 ? gateway.upstreams.get(name.slice(0, at)) : undefined;
  if (!upstream) return undefined;
  const tool = name.slice(at + NAMESPACE_SEPARATOR.length);
  if (upstream.held.has(tool) || upstream.config.tools[tool]?.policy === 'deny' || !upstream.tools.some((t) => t.name === tool))
    return undefined;
  const planned = await gateway.runtime.planRead(
    { agent: upstreamAgentName(upstream.name), tool, args, options: GATEWAY_SESSION_OPTIONS },
    identity,
  );
  if (planned.ran !== 'planned') return undefined;
  return async () => {
    takeRateLimits(gateway, identity, name);
    const read = await planned.run();
    return gateway.takeResult(read.callId) ?? (read.isError ? textResult(read.output, true) : (read.output as CallToolResult));
  };
}
