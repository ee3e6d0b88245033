/** Who did something, as the audit log names it. Built here only, so every event spells it alike. */
export type AuditActor = `user:${string}` | `agent:${string}` | `rule:${string}` | 'system';

export const SYSTEM_ACTOR: AuditActor = 'system';

export function userActor(username: string): AuditActor {
  return `user:${username}`;
}

export function agentActor(agent: string): AuditActor {
  return `agent:${agent}`;
}

export function ruleActor(rule: string): AuditActor {
  return `rule:${rule}`;
}

/** The actor of an approval recorded as a username or as `rule:NAME`. */
export function approverActor(approvedBy: string): AuditActor {
  return approvedBy.startsWith('rule:') ? (approvedBy as AuditActor) : userActor(approvedBy);
}
