import { createHash, randomBytes, type ScryptOptions, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { Clock } from '../agent/define-agent.ts';
import { defineErrorCodes } from '../errors/index.ts';
import type { Store, UsersTable } from '../store/index.ts';
import { type Identity, ROLE_ADMIN, ROLE_APPROVER, ROLE_USER } from './identity.ts';

/** Roles a person can hold. `approver` may decide others' sessions; `admin` may do everything. */
export const USER_ROLES = [ROLE_USER, ROLE_APPROVER, ROLE_ADMIN] as const;
export type UserRole = (typeof USER_ROLES)[number];

export const UserErrors = defineErrorCodes({
  USER_EXISTS: {
    status: 409,
    message: 'A user named {username} already exists. Pick another name, or issue a token for the existing user.',
  },
  USER_NOT_FOUND: { status: 404, message: 'There is no user named {username}. List users with "opsgate users list".' },
  USER_INVALID: { status: 400, message: 'The user is invalid: {detail}' },
  TOKEN_NOT_FOUND: { status: 404, message: 'Token {tokenId} does not exist or is not yours. List your tokens and pick one of them.' },
});

export interface UserRecord {
  readonly id: number;
  readonly username: string;
  readonly roles: readonly string[];
  readonly createdAt: string;
  readonly hasPassword: boolean;
}

export interface ApiTokenRecord {
  readonly id: number;
  readonly userId: number;
  readonly name: string;
  readonly createdAt: string;
  readonly lastUsedAt?: string;
}

/** A freshly issued token: `token` is shown once and stored only as its sha256. */
export interface IssuedToken extends ApiTokenRecord {
  readonly token: string;
}

/** scrypt cost parameters. N=2^15, r=8, p=1: about 30 ms per hash, 32 MiB of memory. */
const SCRYPT = { N: 32768, r: 8, p: 1, keyLength: 64, maxmem: 64 * 1024 * 1024 } as const;
const HASH_VERSION = 'scrypt-v1';
const TOKEN_PREFIX = 'ogt_';
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
  };
}

function parseRoles(json: string): string[] {
  const value: unknown = JSON.parse(json);
  return Array.isArray(value) ? value.filter((role): role is string => typeof role === 'string') : [];
}

/** A hash of a random password, verified against when the user does not exist so that timing does not tell. */
let decoyHash: Promise<string> | undefined;

/** People and their API tokens, over the core `users` and `api_tokens` tables (SQLite or PostgreSQL). */
export class UserRepository {
  readonly #store: Store;
  readonly #clock: Clock;

  constructor(store: Store, clock: Clock = { now: () => new Date() }) {
    this.#store = store;
    this.#clock = clock;
  }

  async create(input: { username: string; password?: string; roles?: readonly string[] }): Promise<UserRecord> {
    const roles = input.roles && input.roles.length > 0 ? [...new Set(input.roles)] : [ROLE_USER];
    if (!USERNAME.test(input.username)) {
      throw UserErrors.USER_INVALID({ detail: `"${input.username}" is not a valid name; use 1-64 letters, digits, "_", "." or "-"` });
    }
    const unknown = roles.filter((role) => !(USER_ROLES as readonly string[]).includes(role));
    if (unknown.length > 0)
      throw UserErrors.USER_INVALID({ detail: `unknown role ${unknown.join(', ')}; roles are ${USER_ROLES.join(', ')}` });
    if (input.password !== undefined && input.password.length < 8) {
      throw UserErrors.USER_INVALID({ detail: 'the password must have at least 8 characters' });
    }
    if (await this.findByName(input.username)) throw UserErrors.USER_EXISTS({ username: input.username });
    const passwordHash = input.password === undefined ? null : await hashPassword(input.password);
    const createdAt = this.#clock.now().toISOString();
    try {
      const row = await this.#store.db
        .insertInto('users')
        .values({ username: input.username, password_hash: passwordHash, roles: JSON.stringify(roles), created_at: createdAt })
        .returning('id')
        .executeTakeFirstOrThrow();
      return { id: row.id, username: input.username, roles, createdAt, hasPassword: passwordHash !== null };
    } catch (error) {
      if (await this.findByName(input.username)) throw UserErrors.USER_EXISTS({ username: input.username }, { cause: error });
      throw error;
    }
  }

  async setPassword(username: string, password: string): Promise<void> {
    if (password.length < 8) throw UserErrors.USER_INVALID({ detail: 'the password must have at least 8 characters' });
    const user = await this.requireByName(username);
    await this.#store.db
      .updateTable('users')
      .set({ password_hash: await hashPassword(password) })
      .where('id', '=', user.id)
      .execute();
  }

  async setRoles(username: string, roles: readonly string[]): Promise<UserRecord> {
    const unknown = roles.filter((role) => !(USER_ROLES as readonly string[]).includes(role));
    if (unknown.length > 0 || roles.length === 0)
      throw UserErrors.USER_INVALID({ detail: `roles must be some of ${USER_ROLES.join(', ')}` });
    const user = await this.requireByName(username);
    await this.#store.db
      .updateTable('users')
      .set({ roles: JSON.stringify([...new Set(roles)]) })
      .where('id', '=', user.id)
      .execute();
    return { ...user, roles: [...new Set(roles)] };
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

  /** The identity for a username and password, or undefined. Takes as long for unknown users as for wrong passwords. */
  async verifyLogin(username: string, password: string): Promise<Identity | undefined> {
    const row = await this.#store.db.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirst();
    if (!row || row.password_hash === null) {
      decoyHash ??= hashPassword(randomBytes(16).toString('hex'));
      await verifyPassword(password, await decoyHash);
      return undefined;
    }
    if (!(await verifyPassword(password, row.password_hash))) return undefined;
    return { userId: row.id, username: row.username, roles: parseRoles(row.roles) };
  }

  /** Issues an API token: 32 random bytes, shown once, stored as sha256. */
  async createToken(username: string, name = 'default'): Promise<IssuedToken> {
    const user = await this.requireByName(username);
    const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    const createdAt = this.#clock.now().toISOString();
    const row = await this.#store.db
      .insertInto('api_tokens')
      .values({ user_id: user.id, name, token_hash: sha256(token), created_at: createdAt, last_used_at: null })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { id: row.id, userId: user.id, name, createdAt, token };
  }

  async listTokens(userId: number): Promise<ApiTokenRecord[]> {
    const rows = await this.#store.db.selectFrom('api_tokens').selectAll().where('user_id', '=', userId).orderBy('id').execute();
    return rows.map((row) => ({
      id: row.id,
      userId: row.user_id,
      name: row.name,
      createdAt: row.created_at,
      ...(row.last_used_at ? { lastUsedAt: row.last_used_at } : {}),
    }));
  }

  /** Revokes one of the user's tokens (admins pass `any: true` to revoke anyone's). */
  async revokeToken(userId: number, tokenId: number, any = false): Promise<void> {
    let query = this.#store.db.deleteFrom('api_tokens').where('id', '=', tokenId);
    if (!any) query = query.where('user_id', '=', userId);
    const result = await query.executeTakeFirst();
    if (Number(result.numDeletedRows) === 0) throw UserErrors.TOKEN_NOT_FOUND({ tokenId });
  }

  /** The identity a bearer token stands for, or undefined. Lookup is by hash, so no secret is compared in JS. */
  async authenticateToken(token: string): Promise<Identity | undefined> {
    if (!token.startsWith(TOKEN_PREFIX)) return undefined;
    const row = await this.#store.db
      .selectFrom('api_tokens')
      .innerJoin('users', 'users.id', 'api_tokens.user_id')
      .select(['api_tokens.id as tokenId', 'users.id as userId', 'users.username', 'users.roles'])
      .where('api_tokens.token_hash', '=', sha256(token))
      .executeTakeFirst();
    if (!row) return undefined;
    await this.#store.db
      .updateTable('api_tokens')
      .set({ last_used_at: this.#clock.now().toISOString() })
      .where('id', '=', row.tokenId)
      .execute();
    return { userId: row.userId, username: row.username, roles: parseRoles(row.roles) };
  }
}
