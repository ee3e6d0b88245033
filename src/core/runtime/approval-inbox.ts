import { hasRole, type Identity, ROLE_APPROVER } from '../identity/index.ts';
import type { CallPolicy, PolicyPrincipal } from '../policy/index.ts';
import type { PolicyTarget, Risk } from '../tools/index.ts';
import type { Db } from './session-repository.ts';
import { parseSessionState } from './session-state.ts';
import type { ApprovalInterrupt, Interrupt } from './types.ts';

/** A call waiting for approval, as an approver's inbox shows it. */
export interface PendingApproval {
  readonly sessionId: string;
  readonly agent: string;
  readonly title: string;
  readonly interrupt: ApprovalInterrupt;
  /** The person asking may approve this call now. */
  readonly mayApprove: boolean;
}

/** A decided approval (approved, rejected, expired) in the inbox's history. */
export interface DecidedApproval {
  readonly sessionId: string;
  readonly agent: string;
  readonly callId: string;
  readonly tool: string;
  readonly risk: string;
  readonly status: string;
  readonly requestedBy: string;
  /** `user:NAME`, a person's name or `rule:NAME`; absent for rejections and expiries. */
  readonly approvedBy?: string;
  readonly decision?: unknown;
  readonly decidedAt: string;
}

export interface ApprovalInboxOptions {
  readonly db: Db;
  readonly policy: CallPolicy;
  readonly now: () => Date;
  readonly withTeams: (people: readonly PolicyPrincipal[]) => Promise<PolicyPrincipal[]>;
  /** The target a pending call acts on (its tool's `policyTarget`), so the inbox answers as the decision will. */
  readonly targetOf?: (agent: string, tool: string, args: Readonly<Record<string, unknown>>) => PolicyTarget | undefined;
}

/** Pending approvals across the sessions `actor` may see (their own; every session for approvers). */
export async function listPendingApprovals(options: ApprovalInboxOptions, actor: Identity): Promise<PendingApproval[]> {
  let query = options.db
    .selectFrom('sessions')
    .select(['id', 'agent', 'title', 'user_id', 'state', 'interrupt'])
    .where('status', '=', 'waiting')
    .where('interrupt', 'is not', null)
    .orderBy('updated_at', 'asc')
    .limit(500);
  if (!hasRole(actor, ROLE_APPROVER)) query = query.where('user_id', '=', actor.userId);
  const rows = await query.execute();
  const pending: PendingApproval[] = [];
  for (const row of rows) {
    const interrupt = JSON.parse(row.interrupt ?? 'null') as Interrupt | null;
    if (interrupt?.type !== 'approval') continue;
    const state = parseSessionState(row.state);
    const [approver, requester] = await options.withTeams([
      { username: actor.username, roles: actor.roles },
      { username: interrupt.requestedBy, roles: state.roles },
    ]);
    const target = options.targetOf?.(row.agent, interrupt.tool, interrupt.args);
    const verdict = options.policy.mayApprove({
      approver: approver!,
      requester: requester!,
      call: {
        tool: interrupt.tool,
        agent: row.agent,
        mutable: true,
        risk: interrupt.risk as Risk,
        args: interrupt.args,
        ...(target ? { target } : {}),
      },
      approvalsSoFar: interrupt.approvals ?? [],
      channel: actor.channel ?? 'web',
      credentialIssuedBy: actor.credentialIssuedBy ?? '',
      requesterCredentialIssuers: state.credentialIssuers ?? [],
      at: options.now(),
    });
    pending.push({ sessionId: row.id, agent: row.agent, title: row.title, interrupt, mayApprove: verdict.allowed });
  }
  return pending;
}

/** The latest decided approvals (newest first) across the sessions `actor` may see. Default limit 50. */
export async function listDecidedApprovals(db: Db, actor: Identity, limit = 50): Promise<DecidedApproval[]> {
  let query = db
    .selectFrom('tool_calls as c')
    .innerJoin('sessions as s', 's.id', 'c.session_id')
    .select(['c.session_id', 's.agent', 's.state', 'c.id', 'c.tool', 'c.risk', 'c.status', 'c.approved_by', 'c.decision', 'c.decided_at'])
    .where('c.mutability', '=', 'mutable')
    .where('c.decided_at', 'is not', null)
    .orderBy('c.decided_at', 'desc')
    .limit(limit);
  if (!hasRole(actor, ROLE_APPROVER)) query = query.where('s.user_id', '=', actor.userId);
  const rows = await query.execute();
  return rows.map((row) => ({
    sessionId: row.session_id,
    agent: row.agent,
    callId: row.id,
    tool: row.tool,
    risk: row.risk,
    status: row.status,
    requestedBy: parseSessionState(row.state).username,
    ...(row.approved_by ? { approvedBy: row.approved_by } : {}),
    ...(row.decision ? { decision: JSON.parse(row.decision) as unknown } : {}),
    decidedAt: row.decided_at ?? '',
  }));
}
