/** Who acts. Always taken from the authenticated session, never from model output. */
export interface Identity {
  readonly userId: number;
  readonly username: string;
  /** e.g. `user`, `approver`, `admin`. */
  readonly roles: readonly string[];
}

export const ROLE_USER = 'user';
export const ROLE_APPROVER = 'approver';
export const ROLE_ADMIN = 'admin';

export function hasRole(identity: Identity, role: string): boolean {
  return identity.roles.includes(role) || identity.roles.includes(ROLE_ADMIN);
}
