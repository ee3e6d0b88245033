import { OpsgateError } from '../core/errors/index.ts';
import { GatewayErrors } from './gateway-errors.ts';

const GATEWAY_AGENT_PREFIX = 'gateway-';

/**
 * A decision runs the approved call in the process that records it (F5): one without the
 * gateway's configuration does not know the upstream. Turns the runtime's bare UNKNOWN_AGENT for
 * a gateway agent into an error that says which upstream is missing and how to give it.
 */
export function explainedDecisionError(error: unknown): unknown {
  if (!OpsgateError.isInstance(error) || error.code !== 'UNKNOWN_AGENT') return error;
  const agent = error.fields.agent;
  if (typeof agent !== 'string' || !agent.startsWith(GATEWAY_AGENT_PREFIX)) return error;
  return GatewayErrors.GATEWAY_UPSTREAM_NOT_CONFIGURED({ upstream: agent.slice(GATEWAY_AGENT_PREFIX.length) }, { cause: error });
}
