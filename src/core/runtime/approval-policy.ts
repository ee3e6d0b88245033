import type { CallPolicy, PolicyCall, PolicyPrincipal } from '../policy/index.ts';
import type { AnyToolDefinition } from '../tools/index.ts';
import type { ToolCallEnvironment } from './tool-call-environment.ts';
import type { WorkingSession } from './working-session.ts';

/** Who asks and when, for a policy question about a call of this session. */
export function policySubject(
  env: ToolCallEnvironment,
  session: WorkingSession,
): { readonly policy: CallPolicy; readonly user: PolicyPrincipal; readonly agent: string; readonly at: Date } {
  return { policy: env.policy, user: requesterOf(session), agent: session.agent.definition.name, at: env.now() };
}

export function requesterOf(session: WorkingSession): PolicyPrincipal {
  return { username: session.identity.username, roles: session.identity.roles };
}

export function policyCall(session: WorkingSession, tool: AnyToolDefinition, args: Readonly<Record<string, unknown>>): PolicyCall {
  return { tool: tool.name, agent: session.agent.definition.name, mutable: tool.mutability === 'mutable', risk: tool.risk, args };
}

/** The usernames the policy lets approve this call now, given who already approved it. */
export async function eligibleApprovers(
  env: ToolCallEnvironment,
  session: WorkingSession,
  tool: AnyToolDefinition,
  args: Readonly<Record<string, unknown>>,
  approvalsSoFar: readonly string[],
): Promise<readonly string[]> {
  const candidates = await env.approverCandidates();
  const requester = requesterOf(session);
  const call = policyCall(session, tool, args);
  return env.policy.mayApprove({ approver: requester, requester, call, approvalsSoFar, candidates, at: env.now() }).eligibleApprovers;
}
