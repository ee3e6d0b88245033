import { type Kysely, sql } from 'kysely';
import type { StoreMigration } from '../migration.ts';

/** Every scope a token issued before scopes existed was in effect allowed (its holder's roles decided). */
const LEGACY_SCOPES = 'use,approve,admin';
/** Tokens issued before expiry existed run out this long after the upgrade. */
const LEGACY_TOKEN_DAYS = 90;

/**
 * API tokens carry an expiry, a scope and who issued them; users carry a disabled flag and the
 * time before which their login sessions no longer count (password change, disable, "sign out
 * everywhere"). Revoked login cookies and failed sign-in counts live here too, so logout and login
 * limits hold across restarts and replicas.
 */
export const tokenScopeExpiryMigration: StoreMigration = {
  name: 'core-040-token-scope-expiry',
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('api_tokens').addColumn('expires_at', 'text').execute();
    await db.schema
      .alterTable('api_tokens')
      .addColumn('scopes', 'text', (c) => c.notNull().defaultTo(LEGACY_SCOPES))
      .execute();
    await db.schema.alterTable('api_tokens').addColumn('issued_by', 'text').execute();
    const legacyExpiry = new Date(Date.now() + LEGACY_TOKEN_DAYS * 86_400_000).toISOString();
    await sql`update api_tokens set expires_at = ${legacyExpiry} where expires_at is null`.execute(db);

    await db.schema.alterTable('users').addColumn('disabled_at', 'text').execute();
    await db.schema.alterTable('users').addColumn('sessions_valid_after', 'bigint').execute();

    await db.schema
      .createTable('login_revocations')
      .addColumn('nonce', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'integer', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('login_failures')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('window_start', 'bigint', (c) => c.notNull())
      .addColumn('failures', 'integer', (c) => c.notNull())
      .execute();
  },
};
