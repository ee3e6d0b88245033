import type { CallPolicy, PolicyCall, PolicyPrincipal } from '../policy/index.ts';
import type { AnyToolDefinition, Risk } from '../tools/index.ts';
import type { ToolCallEnvironment } from './tool-call-environment.ts';
import type { WorkingSession } from './working-session.ts';

/** Who asks (with their teams) and when, for a policy question about a call of this session. */
export async function policySubject(
  env: ToolCallEnvironment,
  session: WorkingSession,
): Promise<{
  readonly policy: CallPolicy;
  readonly user: PolicyPrincipal;
  readonly agent: string;
  readonly channel: string;
  readonly at: Date;
}> {
  return {
    policy: env.policy,
    user: await requesterOf(env, session),
    agent: session.agent.definition.name,
    channel: session.channel,
    at: env.now(),
  };
}

/** The session's owner as the policy sees them. */
export async function requesterOf(env: ToolCallEnvironment, session: WorkingSession): Promise<PolicyPrincipal> {
  const [requester] = await env.withTeams([{ username: session.identity.username, roles: session.identity.roles }]);
  return requester!;
}

/** People who issued a credential the session's owner acted with: each counts as a requester of its calls. */
export function requesterCredentialIssuers(session: WorkingSession): readonly string[] {
  return session.state.credentialIssuers ?? [];
}

/** What a proposal records about borrowed credentials behind it (nothing when the owner used only their own). */
export function requesterCredentialMark(session: WorkingSession): { readonly requesterCredentialIssuers?: readonly string[] } {
  const issuers = requesterCredentialIssuers(session);
  return issuers.length > 0 ? { requesterCredentialIssuers: [...issuers] } : {};
}

/** The call as the policy sees it, with the risk assessed for these arguments (not the tool's declared one). */
export function policyCall(
  session: WorkingSession,
  tool: AnyToolDefinition,
  args: Readonly<Record<string, unknown>>,
  risk: Risk,
): PolicyCall {
  const target = tool.policyTarget?.(args);
  return {
    tool: tool.name,
    agent: session.agent.definition.name,
    mutable: tool.mutability === 'mutable',
    risk,
    args,
    ...(target ? { target } : {}),
  };
}

/** The usernames the policy lets approve this call now, given who already approved it. */
export async function eligibleApprovers(
  env: ToolCallEnvironment,
  session: WorkingSession,
  tool: AnyToolDefinition,
  args: Readonly<Record<string, unknown>>,
  approvalsSoFar: readonly string[],
  risk: Risk,
): Promise<readonly string[]> {
  const candidates = await env.approverCandidates();
  const requester = await requesterOf(env, session);
  const call = policyCall(session, tool, args, risk);
  return env.policy.mayApprove({
    approver: requester,
    requester,
    call,
    approvalsSoFar,
    candidates,
    requesterCredentialIssuers: requesterCredentialIssuers(session),
    at: env.now(),
  }).eligibleApprovers;
}
