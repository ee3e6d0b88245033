import { CoreErrors } from '../../core/errors/index.ts';
import { USER_ROLES } from '../../core/identity/users.ts';

/** Single sign-on with one OpenID Connect issuer; local passwords keep working beside it. */
export interface OidcConfig {
  /** The only issuer accepted; tokens from any other are refused. */
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Where the issuer sends people back: `<public URL>/api/oidc/callback`. */
  readonly redirectUri: string;
  /** Claim naming the opsgate username. Default `preferred_username`. */
  readonly usernameClaim: string;
  /** Claim holding the person's groups (a list of strings). Default `groups`. */
  readonly rolesClaim: string;
  /** Group → opsgate role (`user`, `approver`, `admin`). People in no mapped group are `user`. */
  readonly roleMap: Readonly<Record<string, string>>;
  /** Claim holding the person's teams (a list of strings). Default `teams`. */
  readonly teamsClaim: string;
  /** Allow an http:// issuer (tests, a lab). Default false. */
  readonly allowInsecureIssuer: boolean;
}

function parseRoleMap(text: string): Record<string, string> {
  const map: Record<string, string> = {};
  for (const pair of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [group, role] = pair.split('=').map((p) => p.trim());
    if (!group || !role || !(USER_ROLES as readonly string[]).includes(role))
      throw CoreErrors.CONFIG_INVALID({
        detail: `OPSGATE_OIDC_ROLE_MAP wants GROUP=ROLE pairs with a role of ${USER_ROLES.join(', ')}; got "${pair}"`,
      });
    map[group] = role;
  }
  return map;
}

/**
 * From `OPSGATE_OIDC_ISSUER`, `…_CLIENT_ID`, `…_CLIENT_SECRET`, `…_REDIRECT_URI` (all four, or
 * none: no SSO), `…_USERNAME_CLAIM`, `…_ROLES_CLAIM`, `…_ROLE_MAP` ("ops-approvers=approver,…"),
 * `…_TEAMS_CLAIM` and `…_ALLOW_INSECURE=1`.
 */
export function oidcConfigFromEnv(env: Readonly<Record<string, string | undefined>>): OidcConfig | undefined {
  const required = ['OPSGATE_OIDC_ISSUER', 'OPSGATE_OIDC_CLIENT_ID', 'OPSGATE_OIDC_CLIENT_SECRET', 'OPSGATE_OIDC_REDIRECT_URI'] as const;
  const present = required.filter((name) => env[name]);
  if (present.length === 0) return undefined;
  if (present.length < required.length)
    throw CoreErrors.CONFIG_INVALID({
      detail: `single sign-on needs ${required.join(', ')}; missing ${required.filter((n) => !env[n]).join(', ')}`,
    });
  return {
    issuer: env.OPSGATE_OIDC_ISSUER!,
    clientId: env.OPSGATE_OIDC_CLIENT_ID!,
    clientSecret: env.OPSGATE_OIDC_CLIENT_SECRET!,
    redirectUri: env.OPSGATE_OIDC_REDIRECT_URI!,
    usernameClaim: env.OPSGATE_OIDC_USERNAME_CLAIM || 'preferred_username',
    rolesClaim: env.OPSGATE_OIDC_ROLES_CLAIM || 'groups',
    roleMap: parseRoleMap(env.OPSGATE_OIDC_ROLE_MAP ?? ''),
    teamsClaim: env.OPSGATE_OIDC_TEAMS_CLAIM || 'teams',
    allowInsecureIssuer: env.OPSGATE_OIDC_ALLOW_INSECURE === '1',
  };
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : typeof value === 'string' ? [value] : [];
}

/** Roles and teams from the ID token's claims, by the configured mapping. */
export function mapClaims(
  config: OidcConfig,
  claims: Readonly<Record<string, unknown>>,
): { username: string; roles: string[]; teams: string[] } {
  const username = claims[config.usernameClaim];
  const groups = strings(claims[config.rolesClaim]);
  const mapped = [...new Set(groups.map((group) => config.roleMap[group]).filter((role): role is string => role !== undefined))];
  const roles = mapped.length > 0 ? USER_ROLES.filter((role) => mapped.includes(role)) : ['user'];
  return { username: typeof username === 'string' ? username : '', roles: [...roles], teams: strings(claims[config.teamsClaim]) };
}
