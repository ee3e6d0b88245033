import { type Kysely, sql } from 'kysely';
import type { StoreMigration } from '../migration.ts';

/**
 * Tokens and cost of every model step, per session and turn, stored in the same transaction as
 * the step itself, so the session page and `/metrics` show what a session cost.
 */
export const modelUsageMigration: StoreMigration = {
  name: 'core-010-model-usage',
  async up(db: Kysely<unknown>, dialect) {
    const autoId = dialect === 'postgres' ? sql`bigserial primary key` : sql`integer primary key autoincrement`;
    await db.schema
      .createTable('model_usage')
      .addColumn('id', autoId as never)
      .addColumn('session_id', 'text', (c) => c.notNull())
      .addColumn('turn', 'integer', (c) => c.notNull())
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('model', 'text', (c) => c.notNull())
      .addColumn('input_tokens', 'integer', (c) => c.notNull())
      .addColumn('output_tokens', 'integer', (c) => c.notNull())
      .addColumn('cost_usd', 'real')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('model_usage_session').on('model_usage').columns(['session_id', 'turn']).execute();
  },
};
