import type { AuditActor } from '../audit/index.ts';

/**
 * Audit event types for identity operations. Like agents' own types (`command_executed`) they
 * live beside the code that writes them; the audit log accepts any lowercase type name.
 * No payload ever holds a secret: no token value, password, key or cookie.
 */
const IDENTITY_AUDIT_EVENT_TYPES = [
  'user_created',
  'user_roles_changed',
  'user_password_changed',
  'user_disabled',
  'user_enabled',
  'token_issued',
  'token_revoked',
  'login_succeeded',
  'login_failed',
  'logout',
  'sso_signed_in',
  'oauth_consent_granted',
  'oauth_consent_denied',
  'host_added',
  'host_trusted',
  'host_removed',
] as const;

export type IdentityAuditEventType = (typeof IDENTITY_AUDIT_EVENT_TYPES)[number];

/** The username the CLI records as issuer: whoever can open the store administers it locally. */
export const LOCAL_ADMIN = 'local-admin';

/** Who makes an identity change: the audit actor and the name a token records as its issuer. */
export interface ChangedBy {
  readonly actor: AuditActor;
  /** The authenticated username, or `local-admin` for the CLI. */
  readonly username: string;
  /** The door: `web`, `rest`, `cli`, `sso`. */
  readonly via: string;
  /** Set when the credential used was issued by someone else (a borrowed token): that person. */
  readonly credentialIssuedBy?: string;
}
