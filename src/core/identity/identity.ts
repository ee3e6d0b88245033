/**
 * The door a person acts through. Every decision records it and the policy sees it, so a policy can
 * say, for example, that an answer to an MCP elicitation counts only for low-risk calls.
 */
export type Channel = 'web' | 'rest' | 'cli' | 'chat' | 'mcp' | 'mcp-elicitation' | 'gateway' | 'slack' | 'teams' | 'policy';

export const CHANNELS: readonly Channel[] = ['web', 'rest', 'cli', 'chat', 'mcp', 'mcp-elicitation', 'gateway', 'slack', 'teams', 'policy'];

/** Who acts. Always taken from the authenticated session, never from model output. */
export interface Identity {
  readonly userId: number;
  readonly username: string;
  /** e.g. `user`, `approver`, `admin`. */
  readonly roles: readonly string[];
  /** Where this action comes from. Unset means the interface did not say (treated as `rest`). */
  readonly channel?: Channel;
  /**
   * Set when the credential was issued by someone other than its holder (an admin minted a token
   * for this user): that person's username. Decisions name the issuer and the policy sees it.
   */
  readonly credentialIssuedBy?: string;
}

export const ROLE_USER = 'user';
export const ROLE_APPROVER = 'approver';
export const ROLE_ADMIN = 'admin';

export function hasRole(identity: Identity, role: string): boolean {
  return identity.roles.includes(role) || identity.roles.includes(ROLE_ADMIN);
}

/** The same person acting through another door. */
export function throughChannel(identity: Identity, channel: Channel): Identity {
  return { ...identity, channel };
}
