import { type Kysely, sql } from 'kysely';
import { GENESIS_HASH, hashAuditEvent } from '../../audit/chain-hash.ts';
import type { StoreMigration } from '../migration.ts';
import type { CoreDatabase } from '../schema.ts';

/** The sealer's PostgreSQL advisory lock (the same key as `AuditLog`'s). */
const SEALER_LOCK_KEY = 0x6f707367;

/**
 * Anchors the audit outside the store: journal rows and sealed events carry a MAC made with a key
 * kept outside the database, and signed checkpoints of the chain head are kept here and in a file.
 *
 * Rows journaled before this migration carry no MAC; the migration seals them into the chain
 * itself, so that from now on every journal row must carry a valid MAC.
 */
export const auditAnchorsMigration: StoreMigration = {
  name: 'core-030-audit-anchors',
  async up(db: Kysely<unknown>, dialect) {
    await db.schema.alterTable('audit_pending').addColumn('mac', 'text').execute();
    await db.schema.alterTable('audit_events').addColumn('mac', 'text').execute();
    const seqType = dialect === 'postgres' ? 'bigint' : 'integer';
    await db.schema
      .createTable('audit_checkpoints')
      .addColumn('seq', seqType, (c) => c.primaryKey())
      .addColumn('hash', 'text', (c) => c.notNull())
      .addColumn('at', 'text', (c) => c.notNull())
      .addColumn('key_id', 'text', (c) => c.notNull())
      .addColumn('macs_from', seqType, (c) => c.notNull())
      .addColumn('signature', 'text', (c) => c.notNull())
      .execute();
    await sealUnauthenticatedJournal(db as unknown as Kysely<CoreDatabase>, dialect);
  },
};

async function sealUnauthenticatedJournal(db: Kysely<CoreDatabase>, dialect: string): Promise<void> {
  if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(${SEALER_LOCK_KEY})`.execute(db);
  const pending = await db.selectFrom('audit_pending').selectAll().orderBy('id', 'asc').execute();
  if (pending.length === 0) return;
  const last = await db.selectFrom('audit_events').select(['seq', 'hash']).orderBy('seq', 'desc').limit(1).executeTakeFirst();
  let tail = last ? { seq: Number(last.seq), hash: last.hash } : { seq: 0, hash: GENESIS_HASH };
  for (const row of pending) {
    const seq = tail.seq + 1;
    const content = { seq, sessionId: row.session_id, type: row.type, actor: row.actor, payload: row.payload, createdAt: row.created_at };
    const hash = hashAuditEvent(tail.hash, content);
    await db
      .insertInto('audit_events')
      .values({
        seq,
        session_id: row.session_id,
        type: row.type,
        actor: row.actor,
        payload: row.payload,
        prev_hash: tail.hash,
        hash,
        created_at: row.created_at,
        mac: null,
      })
      .execute();
    tail = { seq, hash };
  }
  await db.deleteFrom('audit_pending').execute();
}
