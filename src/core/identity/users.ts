import { createHash, randomBytes, type ScryptOptions, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { Clock } from '../agent/define-agent.ts';
import { AuditLog } from '../audit/index.ts';
import { defineErrorCodes } from '../errors/index.ts';
import { runInTransaction, type Store, type UsersTable, type WriteTransaction } from '../store/index.ts';
import { type Identity, ROLE_ADMIN, ROLE_APPROVER, ROLE_USER } from './identity.ts';
import type { ChangedBy, IdentityAuditEventType } from './identity-audit.ts';
import { identityOf, TOKEN_SCOPES, type TokenScope } from './identity-rules.ts';

/** Roles a person can hold. `approver` may decide others' sessions; `admin` may do everything. */
export const USER_ROLES = [ROLE_USER, ROLE_APPROVER, ROLE_ADMIN] as const;

export const UserErrors = defineErrorCodes({
  USER_EXISTS: {
    status: 409,
    message: 'A user named {username} already exists. Pick another name, or issue a token for the existing user.',
  },
  USER_NOT_FOUND: { status: 404, message: 'There is no user named {username}. List users with "opsgate users list".' },
  USER_INVALID: { status: 400, message: 'The user is invalid: {detail}' },
  USER_DISABLED: {
    status: 403,
    message: 'The account {username} is disabled. Ask an administrator to enable it ("opsgate users enable {username}").',
  },
  TOKEN_NOT_FOUND: { status: 404, message: 'Token {tokenId} does not exist or is not yours. List your tokens and pick one of them.' },
  TOKEN_INVALID: { status: 400, message: 'The token request is invalid: {detail}' },
  TOKEN_EXPIRED: {
    status: 401,
    message: 'This API token expired at {expiresAt}. Issue a new one (POST /api/tokens or "opsgate users token NAME") and use it instead.',
  },
  PASSWORD_MISMATCH: { status: 403, message: 'The current password is wrong. Enter your current password to change it.' },
});

export { TOKEN_SCOPES, type TokenScope } from './identity-rules.ts';

/** Default lifetime of a token: 90 days; the longest allowed: one year. */
const DEFAULT_TOKEN_TTL_MS = 90 * 86_400_000;
export const MAX_TOKEN_TTL_MS = 365 * 86_400_000;

export interface UserRecord {
  readonly id: number;
  readonly username: string;
  readonly roles: readonly string[];
  readonly createdAt: string;
  readonly hasPassword: boolean;
  readonly disabled: boolean;
  /** Epoch ms: login cookies issued at or before it no longer count. */
  readonly sessionsValidAfter?: number;
}

export interface ApiTokenRecord {
  readonly id: number;
  readonly userId: number;
  readonly name: string;
  readonly createdAt: string;
  readonly lastUsedAt?: string;
  readonly expiresAt?: string;
  readonly scopes: readonly TokenScope[];
  /** Who issued it; differs from the holder when an admin (or the CLI) minted it for them. */
  readonly issuedBy?: string;
}

/** A freshly issued token: `token` is shown once and stored only as its sha256. */
export interface IssuedToken extends ApiTokenRecord {
  readonly token: string;
}

export interface TokenOptions {
  /** Default: every scope the holder's roles allow when self-issued, `use` when issued for someone else. */
  readonly scopes?: readonly string[];
  /** Default 90 days, at most one year. */
  readonly expiresInMs?: number;
  /** Who issues it; absent means the holder. */
  readonly by?: ChangedBy;
}

/** The identity behind a bearer token, with what the token may do. */
export interface TokenIdentity {
  readonly identity: Identity;
  readonly scopes: ReadonlySet<TokenScope>;
  /** When the token stops working (ISO time); absent for a token without expiry. */
  readonly expiresAt?: string;
}

/** scrypt cost parameters. N=2^15, r=8, p=1: about 30 ms per hash, 32 MiB of memory. */
const SCRYPT = { N: 32768, r: 8, p: 1, keyLength: 64, maxmem: 64 * 1024 * 1024 } as const;
const HASH_VERSION = 'scrypt-v1';
const TOKEN_PREFIX = 'ogt_';
const TOKEN_LAST_USED_PRECISION_MS = 60_000;
const USERNAME = /^[a-z0-9][a-z0-9_.-]{0,63}$/i;

function scrypt(password: string, salt: Buffer, keyLength: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCallback(password.normalize('NFKC'), salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** `scrypt-v1$N$r$p$salt$hash` (base64url); the per-user salt is 16 random bytes. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, SCRYPT.keyLength, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p, maxmem: SCRYPT.maxmem });
  return [HASH_VERSION, SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Constant-time check of a password against a stored hash; false for malformed or unknown versions. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== HASH_VERSION) return false;
  const [, n, r, p, saltText, keyText] = parts as [string, string, string, string, string, string];
  const expected = Buffer.from(keyText, 'base64url');
  const key = await scrypt(password, Buffer.from(saltText, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: SCRYPT.maxmem,
  });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function toUserRecord(row: Selectable<UsersTable>): UserRecord {
  return {
    id: row.id,
    username: row.username,
    roles: parseRoles(row.roles),
    createdAt: row.created_at,
    hasPassword: row.password_hash !== null,
    disabled: row.disabled_at !== null,
    ...(row.sessions_valid_after !== null ? { sessionsValidAfter: Number(row.sessions_valid_after) } : {}),
  };
}

function parseRoles(json: string): string[] {
  const value: unknown = JSON.parse(json);
  return Array.isArray(value) ? value.filter((role): role is string => typeof role === 'string') : [];
}

function parseScopes(text: string): TokenScope[] {
  return TOKEN_SCOPES.filter((scope) => text.split(',').includes(scope));
}

/** The scopes a person's roles make meaningful: approvers may approve, admins administer. */
function scopesAllowedBy(roles: readonly string[]): TokenScope[] {
  if (roles.includes(ROLE_ADMIN)) return ['use', 'approve', 'admin'];
  if (roles.includes(ROLE_APPROVER)) return ['use', 'approve'];
  return ['use'];
}

function checkRoles(roles: readonly string[]): void {
  const unknown = roles.filter((role) => !(USER_ROLES as readonly string[]).includes(role));
  if (unknown.length > 0 || roles.length === 0)
    throw UserErrors.USER_INVALID({ detail: `unknown role ${unknown.join(', ') || '(none)'}; roles are ${USER_ROLES.join(', ')}` });
}

/** A hash of a random password, verified against when the user does not exist so that timing does not tell. */
let decoyHash: Promise<string> | undefined;

const changesByStore = new WeakMap<Store, number>();

/**
 * How many changes to people (accounts, roles, passwords, tokens) this process has made in a
 * store: a cache of the people in the store is current while this number stays the same and no
 * other process changed them (such caches keep a short lifetime for that).
 */
export function peopleChangesIn(store: Store): number {
  return changesByStore.get(store) ?? 0;
}

/**
 * People and their API tokens, over the core `users` and `api_tokens` tables (SQLite or PostgreSQL).
 * A change made on someone's behalf (`by`) is audited in the same transaction as the change.
 */
export class UserRepository {
  readonly #store: Store;
  readonly #clock: Clock;
  readonly #audit: AuditLog;

  constructor(store: Store, clock: Clock = { now: () => new Date() }) {
    this.#store = store;
    this.#clock = clock;
    this.#audit = new AuditLog(store, () => clock.now());
  }

  /** Runs a change and, when someone made it, its audit event in one transaction. */
  async #change<T>(
    by: ChangedBy | undefined,
    type: IdentityAuditEventType,
    work: (trx: WriteTransaction) => Promise<{ result: T; payload: Record<string, unknown> }>,
  ): Promise<T> {
    try {
      return await runInTransaction(this.#store, async (trx) => {
        const { result, payload } = await work(trx);
        if (by) {
          const borrowed = by.credentialIssuedBy ? { credentialIssuedBy: by.credentialIssuedBy } : {};
          await this.#audit.append({ type, actor: by.actor, payload: { ...payload, by: by.username, via: by.via, ...borrowed } }, trx);
        }
        return result;
      });
    } finally {
      // After the commit: a cache filled before it is dropped, one filled after it is current.
      changesByStore.set(this.#store, peopleChangesIn(this.#store) + 1);
    }
  }

  async create(input: { username: string; password?: string; roles?: readonly string[] }, by?: ChangedBy): Promise<UserRecord> {
    const roles = input.roles && input.roles.length > 0 ? [...new Set(input.roles)] : [ROLE_USER];
    if (!USERNAME.test(input.username)) {
      throw UserErrors.USER_INVALID({ detail: `"${input.username}" is not a valid name; use 1-64 letters, digits, "_", "." or "-"` });
    }
    checkRoles(roles);
    if (input.password !== undefined && input.password.length < 8) {
      throw UserErrors.USER_INVALID({ detail: 'the password must have at least 8 characters' });
    }
    if (await this.findByName(input.username)) throw UserErrors.USER_EXISTS({ username: input.username });
    const passwordHash = input.password === undefined ? null : await hashPassword(input.password);
    const createdAt = this.#clock.now().toISOString();
    try {
      return await this.#change(by, 'user_created', async (trx) => {
        const row = await trx
          .insertInto('users')
          .values({ username: input.username, password_hash: passwordHash, roles: JSON.stringify(roles), created_at: createdAt })
          .returning('id')
          .executeTakeFirstOrThrow();
        const user: UserRecord = {
          id: row.id,
          username: input.username,
          roles,
          createdAt,
          hasPassword: passwordHash !== null,
          disabled: false,
        };
        return { result: user, payload: { username: user.username, roles, hasPassword: user.hasPassword } };
      });
    } catch (error) {
      if (await this.findByName(input.username)) throw UserErrors.USER_EXISTS({ username: input.username }, { cause: error });
      throw error;
    }
  }

  /**
   * Sets a new password and ends every login session of the person (their API tokens stay: a
   * password change is not a token compromise; revoke tokens separately). Returns the cut-off.
   */
  async setPassword(username: string, password: string, by?: ChangedBy): Promise<number> {
    if (password.length < 8) throw UserErrors.USER_INVALID({ detail: 'the password must have at least 8 characters' });
    const user = await this.requireByName(username);
    const hash = await hashPassword(password);
    const validAfter = this.#clock.now().getTime();
    return this.#change(by, 'user_password_changed', async (trx) => {
      await trx.updateTable('users').set({ password_hash: hash, sessions_valid_after: validAfter }).where('id', '=', user.id).execute();
      return { result: validAfter, payload: { username, sessionsEnded: true, tokensKept: true } };
    });
  }

  async setRoles(username: string, roles: readonly string[], by?: ChangedBy): Promise<UserRecord> {
    checkRoles(roles);
    const user = await this.requireByName(username);
    const next = [...new Set(roles)];
    return this.#change(by, 'user_roles_changed', async (trx) => {
      await trx
        .updateTable('users')
        .set({ roles: JSON.stringify(next) })
        .where('id', '=', user.id)
        .execute();
      return { result: { ...user, roles: next }, payload: { username, from: user.roles, to: next } };
    });
  }

  /** Disables a person: no sign-in, every login session ended, every API token revoked. */
  async disable(username: string, by?: ChangedBy): Promise<UserRecord> {
    const user = await this.requireByName(username);
    const now = this.#clock.now();
    return this.#change(by, 'user_disabled', async (trx) => {
      await trx
        .updateTable('users')
        .set({ disabled_at: now.toISOString(), sessions_valid_after: now.getTime() })
        .where('id', '=', user.id)
        .execute();
      const revoked = await trx.deleteFrom('api_tokens').where('user_id', '=', user.id).executeTakeFirst();
      return {
        result: { ...user, disabled: true, sessionsValidAfter: now.getTime() },
        payload: { username, sessionsEnded: true, tokensRevoked: Number(revoked.numDeletedRows) },
      };
    });
  }

  async enable(username: string, by?: ChangedBy): Promise<UserRecord> {
    const user = await this.requireByName(username);
    return this.#change(by, 'user_enabled', async (trx) => {
      await trx.updateTable('users').set({ disabled_at: null }).where('id', '=', user.id).execute();
      return { result: { ...user, disabled: false }, payload: { username } };
    });
  }

  /** Ends every login session of the person now (sign out everywhere). */
  async endSessions(userId: number): Promise<number> {
    const validAfter = this.#clock.now().getTime();
    await this.#store.db.updateTable('users').set({ sessions_valid_after: validAfter }).where('id', '=', userId).execute();
    return validAfter;
  }

  async findByName(username: string): Promise<UserRecord | undefined> {
    const row = await this.#store.db.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirst();
    return row && toUserRecord(row);
  }

  async findById(id: number): Promise<UserRecord | undefined> {
    const row = await this.#store.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toUserRecord(row);
  }

  async requireByName(username: string): Promise<UserRecord> {
    const user = await this.findByName(username);
    if (!user) throw UserErrors.USER_NOT_FOUND({ username });
    return user;
  }

  async list(): Promise<UserRecord[]> {
    const rows = await this.#store.db.selectFrom('users').selectAll().orderBy('id').execute();
    return rows.map(toUserRecord);
  }

  /**
   * The identity for a username and password, or undefined. Takes as long for unknown users as for
   * wrong passwords. A disabled account with the right password gets USER_DISABLED.
   */
  async verifyLogin(username: string, password: string): Promise<Identity | undefined> {
    const row = await this.#store.db.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirst();
    if (!row || row.password_hash === null) {
      decoyHash ??= hashPassword(randomBytes(16).toString('hex'));
      await verifyPassword(password, await decoyHash);
      return undefined;
    }
    if (!(await verifyPassword(password, row.password_hash))) return undefined;
    if (row.disabled_at !== null) throw UserErrors.USER_DISABLED({ username });
    return { userId: row.id, username: row.username, roles: parseRoles(row.roles) };
  }

  /** Issues an API token: 32 random bytes, shown once, stored as sha256, with scopes and an expiry. */
  async createToken(username: string, name = 'default', options: TokenOptions = {}): Promise<IssuedToken> {
    const user = await this.requireByName(username);
    const issuer = options.by?.username ?? username;
    const allowed = scopesAllowedBy(user.roles);
    const requested = options.scopes ?? (issuer === username ? allowed : ['use']);
    const unknown = requested.filter((scope) => !(TOKEN_SCOPES as readonly string[]).includes(scope));
    if (unknown.length > 0 || requested.length === 0)
      throw UserErrors.TOKEN_INVALID({ detail: `unknown scope ${unknown.join(', ') || '(none)'}; scopes are ${TOKEN_SCOPES.join(', ')}` });
    // `admin` includes `approve`: an admin role approves whatever its token says.
    const scopes = TOKEN_SCOPES.filter((scope) => requested.includes(scope) || (scope === 'approve' && requested.includes('admin')));
    const beyond = scopes.filter((scope) => !allowed.includes(scope));
    if (beyond.length > 0)
      throw UserErrors.TOKEN_INVALID({
        detail: `${username}'s roles (${user.roles.join(', ')}) give no use for the scope ${beyond.join(', ')}`,
      });
    const ttl = options.expiresInMs ?? DEFAULT_TOKEN_TTL_MS;
    if (!Number.isFinite(ttl) || ttl <= 0 || ttl > MAX_TOKEN_TTL_MS)
      throw UserErrors.TOKEN_INVALID({ detail: 'the expiry must be more than zero and at most one year' });
    const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    const now = this.#clock.now();
    const createdAt = now.toISOString();
    const expiresAt = new Date(now.getTime() + ttl).toISOString();
    return this.#change(options.by, 'token_issued', async (trx) => {
      const row = await trx
        .insertInto('api_tokens')
        .values({
          user_id: user.id,
          name,
          token_hash: sha256(token),
          created_at: createdAt,
          last_used_at: null,
          expires_at: expiresAt,
          scopes: scopes.join(','),
          issued_by: issuer,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const issued: IssuedToken = { id: row.id, userId: user.id, name, createdAt, expiresAt, scopes, issuedBy: issuer, token };
      return { result: issued, payload: { tokenId: row.id, holder: username, name, scopes, expiresAt } };
    });
  }

  async listTokens(userId: number): Promise<ApiTokenRecord[]> {
    const rows = await this.#store.db.selectFrom('api_tokens').selectAll().where('user_id', '=', userId).orderBy('id').execute();
    return rows.map((row) => ({
      id: row.id,
      userId: row.user_id,
      name: row.name,
      createdAt: row.created_at,
      ...(row.last_used_at ? { lastUsedAt: row.last_used_at } : {}),
      ...(row.expires_at ? { expiresAt: row.expires_at } : {}),
      scopes: parseScopes(row.scopes),
      ...(row.issued_by ? { issuedBy: row.issued_by } : {}),
    }));
  }

  /** Revokes one of the user's tokens (admins pass `any: true` to revoke anyone's). */
  async revokeToken(userId: number, tokenId: number, any = false, by?: ChangedBy): Promise<void> {
    let lookup = this.#store.db
      .selectFrom('api_tokens')
      .innerJoin('users', 'users.id', 'api_tokens.user_id')
      .select(['api_tokens.name', 'users.username'])
      .where('api_tokens.id', '=', tokenId);
    if (!any) lookup = lookup.where('api_tokens.user_id', '=', userId);
    const found = await lookup.executeTakeFirst();
    if (!found) throw UserErrors.TOKEN_NOT_FOUND({ tokenId });
    await this.#change(by, 'token_revoked', async (trx) => {
      const result = await trx.deleteFrom('api_tokens').where('id', '=', tokenId).executeTakeFirst();
      if (Number(result.numDeletedRows) === 0) throw UserErrors.TOKEN_NOT_FOUND({ tokenId });
      return { result: undefined, payload: { tokenId, holder: found.username, name: found.name } };
    });
  }

  /**
   * The identity a bearer token stands for, or undefined. Lookup is by hash, so no secret is
   * compared in JS. The identity keeps only the roles the token's scopes allow, acts through the
   * `rest` channel, and names the issuer when someone else minted the token.
   */
  async authenticateToken(token: string): Promise<TokenIdentity | undefined> {
    if (!token.startsWith(TOKEN_PREFIX)) return undefined;
    const row = await this.#store.db
      .selectFrom('api_tokens')
      .innerJoin('users', 'users.id', 'api_tokens.user_id')
      .select([
        'api_tokens.id as tokenId',
        'api_tokens.expires_at',
        'api_tokens.last_used_at',
        'api_tokens.scopes',
        'api_tokens.issued_by',
        'users.id as userId',
        'users.username',
        'users.roles',
        'users.disabled_at',
      ])
      .where('api_tokens.token_hash', '=', sha256(token))
      .executeTakeFirst();
    if (!row) return undefined;
    const scopes = new Set(parseScopes(row.scopes));
    const identity = identityOf(
      { id: row.userId, username: row.username, roles: parseRoles(row.roles), disabled: row.disabled_at !== null },
      { channel: 'rest', scopes, ...(row.issued_by !== null ? { issuedBy: row.issued_by } : {}) },
    );
    if (!identity) return undefined;
    const now = this.#clock.now();
    if (row.expires_at !== null && Date.parse(row.expires_at) <= now.getTime())
      throw UserErrors.TOKEN_EXPIRED({ expiresAt: row.expires_at });
    // "Last used" is for people reviewing tokens, to the minute: writing it on every request made
    // each bearer request a write transaction.
    if (row.last_used_at === null || now.getTime() - Date.parse(row.last_used_at) >= TOKEN_LAST_USED_PRECISION_MS)
      await this.#store.db.updateTable('api_tokens').set({ last_used_at: now.toISOString() }).where('id', '=', row.tokenId).execute();
    return { identity, scopes, ...(row.expires_at !== null ? { expiresAt: row.expires_at } : {}) };
  }
}
