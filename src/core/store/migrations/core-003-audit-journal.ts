import { type Kysely, sql } from 'kysely';
import type { StoreMigration } from '../migration.ts';

/**
 * Audit events are first journaled (in the same transaction as the change they describe) and then
 * sealed into the hash chain in batches by one sealer at a time, so that concurrent writers never
 * contend for the chain's tail.
 */
export const auditJournalMigration: StoreMigration = {
  name: 'core-003-audit-journal',
  async up(db: Kysely<unknown>, dialect) {
    const autoId = dialect === 'postgres' ? sql`bigserial primary key` : sql`integer primary key autoincrement`;
    await db.schema
      .createTable('audit_pending')
      .addColumn('id', autoId as never)
      .addColumn('session_id', 'text')
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('actor', 'text', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
  },
};
