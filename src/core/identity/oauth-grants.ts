import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Clock } from '../agent/define-agent.ts';
import { userActor } from '../audit/index.ts';
import type { Store } from '../store/index.ts';
import { peopleChangesIn, TOKEN_SCOPES, type TokenIdentity, type TokenScope, type UserRepository } from './users.ts';
import { VerifiedTokens } from './verified-tokens.ts';

/** An authorization code is exchanged within a minute or never. */
export const OAUTH_CODE_TTL_MS = 60_000;
/** Access tokens from OAuth are short-lived: a client signs the person in again after an hour. */
const OAUTH_ACCESS_TOKEN_TTL_MS = 3_600_000;

/** The error codes of RFC 6749 §5.2 / RFC 8707, which OAuth clients act on. */
export type OAuthErrorCode = 'invalid_request' | 'invalid_client' | 'invalid_grant' | 'invalid_target' | 'invalid_scope';

/** A refused OAuth request; `code` is the RFC's `error` and the description says what to do next. */
export class OAuthGrantError extends Error {
  readonly code: OAuthErrorCode;
  constructor(code: OAuthErrorCode, description: string) {
    super(description);
    this.name = 'OAuthGrantError';
    this.code = code;
  }
}

export interface OAuthClient {
  readonly clientId: string;
  readonly clientName: string;
  readonly redirectUris: readonly string[];
  /** The metadata the client registered, as it sent it (RFC 7591 §3.2.1 echoes it back). */
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly createdAt: string;
}

export interface CodeRequest {
  readonly clientId: string;
  readonly userId: number;
  readonly codeChallenge: string;
  readonly redirectUri: string;
  readonly resource: string;
  readonly scopes: readonly TokenScope[];
}

export interface CodeExchange {
  readonly clientId: string;
  readonly code: string;
  readonly codeVerifier: string;
  readonly redirectUri?: string;
  readonly resource?: string;
}

export interface OAuthAccessToken {
  readonly accessToken: string;
  readonly expiresInSeconds: number;
  readonly scopes: readonly TokenScope[];
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** RFC 7636 S256: BASE64URL(SHA256(ASCII(code_verifier))). */
export function s256Challenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** What OAuth scope text asks for, in opsgate's token scopes; nothing named means `use`. */
export function scopesFromText(text: string | undefined): TokenScope[] {
  const named = (text ?? '').split(/\s+/).filter(Boolean);
  const unknown = named.filter((scope) => !(TOKEN_SCOPES as readonly string[]).includes(scope));
  if (unknown.length > 0)
    throw new OAuthGrantError('invalid_scope', `unknown scope ${unknown.join(', ')}; opsgate's scopes are ${TOKEN_SCOPES.join(', ')}`);
  return named.length === 0 ? ['use'] : TOKEN_SCOPES.filter((scope) => named.includes(scope));
}

/**
 * opsgate as an OAuth authorization server for its own MCP endpoints. Access tokens are ordinary
 * API tokens (`UserRepository.createToken`), so expiry, scopes, disabled users and revocation apply
 * unchanged; this store adds which client they went to and the one resource they are bound to.
 */
export class OAuthGrants {
  readonly #store: Store;
  readonly #users: UserRepository;
  readonly #clock: Clock;

  constructor(store: Store, users: UserRepository, clock: Clock = { now: () => new Date() }) {
    this.#store = store;
    this.#users = users;
    this.#clock = clock;
  }

  /** RFC 7591: a public client (PKCE, no secret) with its exact redirect URIs. */
  async registerClient(input: {
    clientName: string;
    redirectUris: readonly string[];
    metadata: Record<string, unknown>;
  }): Promise<OAuthClient> {
    const client: OAuthClient = {
      clientId: `ogc_${randomUUID()}`,
      clientName: input.clientName,
      redirectUris: input.redirectUris,
      metadata: input.metadata,
      createdAt: this.#clock.now().toISOString(),
    };
    await this.#store.db
      .insertInto('oauth_clients')
      .values({
        client_id: client.clientId,
        client_name: client.clientName,
        redirect_uris: JSON.stringify(client.redirectUris),
        metadata: JSON.stringify(client.metadata),
        created_at: client.createdAt,
      })
      .execute();
    return client;
  }

  async findClient(clientId: string): Promise<OAuthClient | undefined> {
    const row = await this.#store.db.selectFrom('oauth_clients').selectAll().where('client_id', '=', clientId).executeTakeFirst();
    return (
      row && {
        clientId: row.client_id,
        clientName: row.client_name,
        redirectUris: JSON.parse(row.redirect_uris) as string[],
        metadata: JSON.parse(row.metadata) as Record<string, unknown>,
        createdAt: row.created_at,
      }
    );
  }

  /** A one-time code for a person's consent; only its hash is stored. */
  async issueCode(request: CodeRequest): Promise<string> {
    const code = randomBytes(32).toString('base64url');
    await this.#store.db
      .insertInto('oauth_codes')
      .values({
        code_hash: sha256Hex(code),
        client_id: request.clientId,
        user_id: request.userId,
        code_challenge: request.codeChallenge,
        redirect_uri: request.redirectUri,
        resource: request.resource,
        scopes: request.scopes.join(','),
        expires_at: this.#clock.now().getTime() + OAUTH_CODE_TTL_MS,
        used_at: null,
      })
      .execute();
    return code;
  }

  /**
   * Exchanges a code for an access token bound to the code's resource. The code is spent before
   * the token is minted, so a replayed code (or a second racing exchange) never gets a token.
   */
  async exchangeCode(exchange: CodeExchange): Promise<OAuthAccessToken> {
    const codeHash = sha256Hex(exchange.code);
    const row = await this.#store.db.selectFrom('oauth_codes').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();
    const now = this.#clock.now().getTime();
    const again = 'start the authorization again';
    if (!row || row.client_id !== exchange.clientId)
      throw new OAuthGrantError('invalid_grant', `unknown authorization code for this client; ${again}`);
    if (row.used_at !== null) throw new OAuthGrantError('invalid_grant', `the authorization code was already used; ${again}`);
    if (Number(row.expires_at) <= now) throw new OAuthGrantError('invalid_grant', `the authorization code expired; ${again}`);
    if (exchange.redirectUri !== undefined && exchange.redirectUri !== row.redirect_uri)
      throw new OAuthGrantError('invalid_grant', 'redirect_uri differs from the one in the authorization request');
    if (exchange.resource !== undefined && exchange.resource !== row.resource)
      throw new OAuthGrantError('invalid_target', `the code was granted for ${row.resource}, not ${exchange.resource}`);
    if (s256Challenge(exchange.codeVerifier) !== row.code_challenge)
      throw new OAuthGrantError('invalid_grant', `code_verifier does not match the PKCE code_challenge; ${again}`);
    const spent = await this.#store.db
      .updateTable('oauth_codes')
      .set({ used_at: now })
      .where('code_hash', '=', codeHash)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    if (Number(spent.numUpdatedRows) !== 1) throw new OAuthGrantError('invalid_grant', `the authorization code was already used; ${again}`);
    const user = await this.#users.findById(row.user_id);
    if (!user || user.disabled) throw new OAuthGrantError('invalid_grant', 'the person who approved this is disabled or gone');
    const client = await this.findClient(row.client_id);
    const issued = await this.#users.createToken(user.username, `oauth:${client?.clientName ?? row.client_id}`, {
      scopes: row.scopes.split(','),
      expiresInMs: OAUTH_ACCESS_TOKEN_TTL_MS,
      // Issued by the person's own consent; `by` makes the token_issued event part of the record.
      by: { actor: userActor(user.username), username: user.username, via: 'oauth' },
    });
    await this.#store.db
      .insertInto('oauth_tokens')
      .values({ token_hash: sha256Hex(issued.token), api_token_id: issued.id, client_id: row.client_id, resource: row.resource })
      .execute();
    return { accessToken: issued.token, expiresInSeconds: OAUTH_ACCESS_TOKEN_TTL_MS / 1000, scopes: issued.scopes };
  }

  /** The resource an OAuth-issued token is bound to; undefined for an API token issued otherwise. */
  async resourceOf(token: string): Promise<string | undefined> {
    const row = await this.#store.db
      .selectFrom('oauth_tokens')
      .select('resource')
      .where('token_hash', '=', sha256Hex(token))
      .executeTakeFirst();
    return row?.resource;
  }
}

/**
 * Bearer tokens presented to an MCP endpoint: the API token rules first (expiry, scopes, disabled
 * holder, revocation), then the audience: a token issued through OAuth for another resource is
 * refused (RFC 8707). API tokens issued otherwise are not bound and keep working. An accepted token
 * is believed for a moment (`VERIFIED_TOKEN_TTL_MS`) unless people change in this process first.
 */
export class ResourceTokens {
  readonly #store: Store;
  readonly #users: UserRepository;
  readonly #grants: OAuthGrants;
  readonly #verified: VerifiedTokens;

  constructor(store: Store, users: UserRepository, grants: OAuthGrants, clock: Clock = { now: () => new Date() }) {
    this.#store = store;
    this.#users = users;
    this.#grants = grants;
    this.#verified = new VerifiedTokens(clock);
  }

  static forStore(store: Store, users: UserRepository, clock?: Clock): ResourceTokens {
    return new ResourceTokens(store, users, new OAuthGrants(store, users, clock), clock);
  }

  async identify(token: string, resource: string): Promise<TokenIdentity | undefined> {
    // Read before the store is asked: a change committed while it answers makes the answer stale.
    const changes = peopleChangesIn(this.#store);
    const key = `${resource}\n${sha256Hex(token)}`;
    const known = this.#verified.get(key, changes);
    if (known) return known;
    const found = await this.#users.authenticateToken(token);
    if (!found) return undefined;
    const boundTo = await this.#grants.resourceOf(token);
    if (boundTo !== undefined && boundTo !== resource) return undefined;
    this.#verified.remember(key, found, changes);
    return found;
  }
}
