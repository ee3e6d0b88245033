import type { Kysely } from 'kysely';
import type { StoreMigration } from '../migration.ts';

/**
 * Which runtime instance runs a call or a turn, and when each instance last said it was alive,
 * so that a starting replica recovers only what a dead one left behind.
 */
export const runnerLeasesMigration: StoreMigration = {
  name: 'core-002-runner-leases',
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('runtime_instances')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('hostname', 'text', (c) => c.notNull())
      .addColumn('pid', 'integer', (c) => c.notNull())
      .addColumn('started_at', 'text', (c) => c.notNull())
      .addColumn('heartbeat_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.alterTable('tool_calls').addColumn('runner', 'text').execute();
    await db.schema.alterTable('sessions').addColumn('runner', 'text').execute();
  },
};
