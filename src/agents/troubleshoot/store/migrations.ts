import { type Kysely, sql } from 'kysely';
import type { StoreMigration } from '../../../core/store/index.ts';

/** Hosts (with the pinned host key) and the spec's `command_history` (AR-02). */
const troubleshootHostsMigration: StoreMigration = {
  name: 'troubleshoot-001-hosts-command-history',
  async up(db: Kysely<unknown>, dialect) {
    const autoId = dialect === 'postgres' ? sql`serial primary key` : sql`integer primary key autoincrement`;
    await db.schema
      .createTable('hosts')
      .addColumn('id', autoId as never)
      .addColumn('name', 'text', (c) => c.notNull().unique())
      .addColumn('address', 'text', (c) => c.notNull())
      .addColumn('port', 'integer', (c) => c.notNull())
      .addColumn('username', 'text', (c) => c.notNull())
      .addColumn('os', 'text', (c) => c.notNull())
      .addColumn('auth_kind', 'text', (c) => c.notNull())
      .addColumn('secret_name', 'text', (c) => c.notNull())
      .addColumn('host_key_sha256', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('command_history')
      .addColumn('id', autoId as never)
      .addColumn('session_id', 'text', (c) => c.notNull())
      .addColumn('host_id', 'integer', (c) => c.notNull())
      .addColumn('user_id', 'integer', (c) => c.notNull())
      .addColumn('tool_call_id', 'text', (c) => c.notNull())
      .addColumn('command', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('exit_status', 'integer')
      .addColumn('duration_ms', 'integer')
      .addColumn('output_sha256', 'text')
      .addColumn('output_excerpt', 'text')
      .addColumn('proposed_at', 'text', (c) => c.notNull())
      .addColumn('approved_at', 'text')
      .addColumn('executed_at', 'text')
      .addColumn('approver', 'text')
      .addColumn('auto_approve_rule', 'text')
      .execute();
    await db.schema.createIndex('command_history_host').on('command_history').columns(['host_id', 'proposed_at']).execute();
    await db.schema.createIndex('command_history_session').on('command_history').columns(['session_id', 'id']).execute();
  },
};

export const troubleshootMigrations: readonly StoreMigration[] = [troubleshootHostsMigration];
