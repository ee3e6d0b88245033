import { type Kysely, sql } from 'kysely';
import type { StoreMigration } from '../migration.ts';

export const coreInitialMigration: StoreMigration = {
  name: 'core-001-initial',
  async up(db: Kysely<unknown>, dialect) {
    const autoId = dialect === 'postgres' ? sql`serial primary key` : sql`integer primary key autoincrement`;
    await db.schema
      .createTable('users')
      .addColumn('id', autoId as never)
      .addColumn('username', 'text', (c) => c.notNull().unique())
      .addColumn('password_hash', 'text')
      .addColumn('roles', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('api_tokens')
      .addColumn('id', autoId as never)
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('last_used_at', 'text')
      .execute();
    await db.schema
      .createTable('sessions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'integer', (c) => c.notNull())
      .addColumn('agent', 'text', (c) => c.notNull())
      .addColumn('pillar', 'text', (c) => c.notNull())
      .addColumn('route', 'text', (c) => c.notNull())
      .addColumn('phase', 'text', (c) => c.notNull())
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('steps', 'integer', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('interrupt', 'text')
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('sessions_user').on('sessions').columns(['user_id', 'updated_at']).execute();
    await db.schema
      .createTable('messages')
      .addColumn('id', autoId as never)
      .addColumn('session_id', 'text', (c) => c.notNull())
      .addColumn('seq', 'integer', (c) => c.notNull())
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('content', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('messages_session_seq', ['session_id', 'seq'])
      .execute();
    await db.schema
      .createTable('tool_calls')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('session_id', 'text', (c) => c.notNull())
      .addColumn('seq', 'integer', (c) => c.notNull())
      .addColumn('tool', 'text', (c) => c.notNull())
      .addColumn('args', 'text', (c) => c.notNull())
      .addColumn('args_hash', 'text', (c) => c.notNull())
      .addColumn('mutability', 'text', (c) => c.notNull())
      .addColumn('risk', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('verdict', 'text')
      .addColumn('preview', 'text')
      .addColumn('decision', 'text')
      .addColumn('result', 'text')
      .addColumn('error', 'text')
      .addColumn('requested_by', 'integer', (c) => c.notNull())
      .addColumn('approved_by', 'text')
      .addColumn('approval_rule', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text')
      .addColumn('decided_at', 'text')
      .addColumn('started_at', 'text')
      .addColumn('finished_at', 'text')
      .execute();
    await db.schema.createIndex('tool_calls_session').on('tool_calls').columns(['session_id', 'seq']).execute();
    await db.schema.createIndex('tool_calls_status').on('tool_calls').column('status').execute();
    await db.schema
      .createTable('audit_events')
      .addColumn('seq', autoId as never)
      .addColumn('session_id', 'text')
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('actor', 'text', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('prev_hash', 'text', (c) => c.notNull())
      .addColumn('hash', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('audit_events_session').on('audit_events').columns(['session_id', 'seq']).execute();
    await db.schema
      .createTable('session_events')
      .addColumn('id', autoId as never)
      .addColumn('session_id', 'text', (c) => c.notNull())
      .addColumn('seq', 'integer', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('data', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('session_events_session_seq', ['session_id', 'seq'])
      .execute();
    await db.schema
      .createTable('feedback')
      .addColumn('id', autoId as never)
      .addColumn('session_id', 'text', (c) => c.notNull())
      .addColumn('user_id', 'integer', (c) => c.notNull())
      .addColumn('target', 'text')
      .addColumn('rating', 'integer', (c) => c.notNull())
      .addColumn('comment', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('secrets')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
  },
};
