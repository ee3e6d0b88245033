import { CoreErrors } from '../errors/index.ts';
import { hasRole, type Identity, ROLE_APPROVER } from '../identity/index.ts';
import type { SessionRow } from './session-repository.ts';

/** The role a session of this person runs with (tools are offered per role). */
export function strongestRole(identity: Identity): string {
  for (const role of ['admin', 'approver', 'user']) if (identity.roles.includes(role)) return role;
  return identity.roles[0] ?? 'user';
}

/** Its owner and every approver may read a session. */
export function mayRead(row: SessionRow, actor: Identity): boolean {
  return row.user_id === actor.userId || hasRole(actor, ROLE_APPROVER);
}

export function assertRead(row: SessionRow, actor: Identity): void {
  if (!mayRead(row, actor)) throw CoreErrors.SESSION_FORBIDDEN({ sessionId: row.id });
}
