import * as client from 'openid-client';
import type { Clock } from '../../core/agent/define-agent.ts';
import { userActor } from '../../core/audit/index.ts';
import type { Identity } from '../../core/identity/index.ts';
import type { UserRepository } from '../../core/identity/users.ts';
import type { Store } from '../../core/store/index.ts';
import { mapClaims, type OidcConfig } from './oidc-config.ts';
import { OidcErrors } from './oidc-errors.ts';
import { OidcIdentities } from './oidc-identities.ts';

/** How long a started sign-on may take before its callback is refused. 10 minutes. */
const PENDING_TTL_MS = 10 * 60 * 1000;

interface PendingLogin {
  readonly codeVerifier: string;
  readonly nonce: string;
  readonly expiresAt: number;
}

/**
 * Authorization code flow with PKCE, state and nonce (openid-client). The ID token must come from
 * the configured issuer; the person is found by (issuer, subject), created on first sign-on with
 * the roles the claims map to, and their roles follow the claims on every sign-on.
 * Started logins live in this process's memory (a replica behind a load balancer needs sticky
 * sessions for the ten minutes a login may take).
 */
export class OidcLogin {
  readonly #config: OidcConfig;
  readonly #users: UserRepository;
  readonly #identities: OidcIdentities;
  readonly #clock: Clock;
  readonly #pending = new Map<string, PendingLogin>();
  #discovered: Promise<client.Configuration> | undefined;

  static async create(
    config: OidcConfig,
    store: Store,
    users: UserRepository,
    clock: Clock = { now: () => new Date() },
  ): Promise<OidcLogin> {
    return new OidcLogin(config, users, await OidcIdentities.create(store), clock);
  }

  constructor(config: OidcConfig, users: UserRepository, identities: OidcIdentities, clock: Clock) {
    this.#config = config;
    this.#users = users;
    this.#identities = identities;
    this.#clock = clock;
  }

  #configuration(): Promise<client.Configuration> {
    this.#discovered ??= client
      .discovery(
        new URL(this.#config.issuer),
        this.#config.clientId,
        this.#config.clientSecret,
        undefined,
        this.#config.allowInsecureIssuer ? { execute: [client.allowInsecureRequests] } : undefined,
      )
      .catch((error: unknown) => {
        this.#discovered = undefined;
        throw OidcErrors.OIDC_LOGIN_FAILED({ detail: `the issuer ${this.#config.issuer} could not be discovered (${errorText(error)})` });
      });
    return this.#discovered;
  }

  /** Where to send the browser to sign in, and the state the browser must bring back (in a cookie). */
  async start(): Promise<{ url: URL; state: string }> {
    const configuration = await this.#configuration();
    const codeVerifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const now = this.#clock.now().getTime();
    for (const [key, pending] of this.#pending) if (pending.expiresAt <= now) this.#pending.delete(key);
    this.#pending.set(state, { codeVerifier, nonce, expiresAt: now + PENDING_TTL_MS });
    const url = client.buildAuthorizationUrl(configuration, {
      redirect_uri: this.#config.redirectUri,
      scope: 'openid profile email',
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { url, state };
  }

  /** Finishes a sign-on from the callback URL (path and query as received). */
  async finish(callbackPathAndQuery: string): Promise<Identity> {
    const currentUrl = new URL(callbackPathAndQuery, this.#config.redirectUri);
    const state = currentUrl.searchParams.get('state') ?? '';
    const pending = this.#pending.get(state);
    this.#pending.delete(state);
    if (!pending || pending.expiresAt <= this.#clock.now().getTime())
      throw OidcErrors.OIDC_LOGIN_FAILED({ detail: 'this sign-on was not started here or took too long' });
    const configuration = await this.#configuration();
    let claims: Record<string, unknown>;
    try {
      const tokens = await client.authorizationCodeGrant(configuration, currentUrl, {
        pkceCodeVerifier: pending.codeVerifier,
        expectedState: state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
      claims = { ...(tokens.claims() ?? {}) };
    } catch (error) {
      throw OidcErrors.OIDC_LOGIN_FAILED({ detail: errorText(error) });
    }
    return this.#signIn(claims);
  }

  async #signIn(claims: Record<string, unknown>): Promise<Identity> {
    const issuer = String(claims.iss);
    const subject = String(claims.sub);
    const { username, roles, teams } = mapClaims(this.#config, claims);
    if (!username)
      throw OidcErrors.OIDC_LOGIN_FAILED({ detail: `the ID token has no "${this.#config.usernameClaim}" claim to name the user` });
    const at = this.#clock.now().toISOString();
    const linkedId = await this.#identities.userFor(issuer, subject);
    let user = linkedId !== undefined ? await this.#users.findById(linkedId) : await this.#users.findByName(username);
    if (linkedId === undefined && user) {
      // A local account with this name that no sign-on owns is never taken over.
      throw OidcErrors.OIDC_ACCOUNT_CONFLICT({ username });
    }
    // Role changes and first sign-on are on the record like any other; the door is `sso`.
    const by = { actor: userActor(username), username, via: 'sso' };
    const sameRoles = user !== undefined && [...user.roles].sort().join() === [...roles].sort().join();
    if (!user) user = await this.#users.create({ username, roles }, by);
    else if (!sameRoles) user = await this.#users.setRoles(user.username, roles, by);
    await this.#identities.link({ issuer, subject, userId: user.id, teams, at });
    return { userId: user.id, username: user.username, roles: user.roles };
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
