import { type Channel, type Identity, ROLE_ADMIN, ROLE_APPROVER, ROLE_USER } from './identity.ts';

/** What a token may be used for. `admin` includes `approve`. */
export const TOKEN_SCOPES = ['use', 'approve', 'admin'] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

/** The person a credential points at, as the store holds them now. */
export interface CredentialHolder {
  readonly id: number;
  readonly username: string;
  readonly roles: readonly string[];
  readonly disabled: boolean;
}

/** What a door knows about the credential it was shown. */
export interface CredentialFacts {
  /** The door. */
  readonly channel: Channel;
  /** A token's scopes; absent for a person who signed in (a login, SSO, a confirmed chat link). */
  readonly scopes?: ReadonlySet<TokenScope>;
  /**
   * Who issued or last changed the credential, when it may be someone other than its holder: an
   * admin who minted a token, `local:<account>` for the CLI's local mode, an admin who changed a
   * chat link or the chat app's secrets. The holder's own name (or absent) means their own.
   */
  readonly issuedBy?: string;
}

/**
 * The roles an identity built from a token keeps: a token without `approve` is no approver, one
 * without `admin` no admin (an admin's `approve` token still approves, as an approver).
 */
function rolesForScopes(roles: readonly string[], scopes: ReadonlySet<TokenScope>): string[] {
  const kept = new Set<string>([ROLE_USER]);
  if (scopes.has('admin') && roles.includes(ROLE_ADMIN)) kept.add(ROLE_ADMIN);
  if (scopes.has('approve') && (roles.includes(ROLE_APPROVER) || roles.includes(ROLE_ADMIN))) kept.add(ROLE_APPROVER);
  return [...kept];
}

/**
 * The one set of identity rules every door applies (web, REST, CLI, MCP, the gateway, Slack, the
 * Teams link into the web UI): nobody acts for an unknown or disabled account; a token keeps only
 * the roles its scopes allow; a credential someone else issued names them, so the policy refuses its
 * approvals of other people's calls. Undefined when the holder may not act at all.
 */
export function identityOf(holder: CredentialHolder | undefined, facts: CredentialFacts): Identity | undefined {
  if (!holder || holder.disabled) return undefined;
  const borrowed = facts.issuedBy !== undefined && facts.issuedBy !== '' && facts.issuedBy !== holder.username;
  return {
    userId: holder.id,
    username: holder.username,
    roles: facts.scopes ? rolesForScopes(holder.roles, facts.scopes) : [...holder.roles],
    channel: facts.channel,
    ...(borrowed ? { credentialIssuedBy: facts.issuedBy } : {}),
  };
}
