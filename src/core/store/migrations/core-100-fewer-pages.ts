import { type Kysely, sql } from 'kysely';
import type { StoreMigration } from '../migration.ts';

/**
 * Tables a round trip appends to. With AUTOINCREMENT, SQLite writes `sqlite_sequence` in every
 * commit that inserts into one of them: a 4 KB page per commit for a counter nobody reads. A plain
 * `integer primary key` is the rowid: still increasing, and reused only when the highest row was
 * deleted — which only the sealer does, to `audit_pending` rows it has chained (it selects and
 * deletes exactly the ids it read, in one transaction, on the one SQLite writer). `audit_events`
 * keeps AUTOINCREMENT: its seq is the chain's, written by the sealer once per batch, off the round trip.
 */
const APPEND_ONLY_TABLES = ['messages', 'session_events', 'model_usage', 'audit_pending'] as const;

/**
 * Fewer pages written per commit (issue 32: a one-at-a-time round trip wrote ~49 WAL pages in 4
 * commits on SQLite, a page for every table and index it touched).
 *
 * - SQLite: the append-only tables above lose AUTOINCREMENT (rebuilt: SQLite cannot alter it).
 *   PostgreSQL's sequences log once per 32 values, so its tables stay as they are.
 * - `sessions_user (user_id, updated_at)` becomes `sessions_owner (user_id)`: every checkpoint
 *   changes `updated_at`, so the old index moved an entry in every commit; a person's session list
 *   now sorts their rows instead of reading them in order.
 * - `tool_calls_status (status)` becomes `tool_calls_executing`, partial on `status = 'executing'`:
 *   recovery's query is its only user (the verifier reads nearly every status, a full scan either
 *   way). A call enters it when it starts and leaves when it ends, instead of moving in every commit.
 *
 * Every step is idempotent, so a start that stopped halfway finishes the rest.
 */
export const fewerPagesMigration: StoreMigration = {
  name: 'core-100-fewer-pages',
  async up(db: Kysely<unknown>, dialect) {
    if (dialect === 'sqlite') {
      for (const table of APPEND_ONLY_TABLES) await dropAutoincrement(db, table);
    }
    await sql`create index if not exists sessions_owner on sessions (user_id)`.execute(db);
    await sql`drop index if exists sessions_user`.execute(db);
    await sql`create index if not exists tool_calls_executing on tool_calls (status) where status = 'executing'`.execute(db);
    await sql`drop index if exists tool_calls_status`.execute(db);
  },
};

/**
 * SQLite's way to change a table's definition (sqlite.org/lang_altertable.html, "other kinds of
 * table schema changes"): a copy under the new definition, the rows, the old table dropped, the copy
 * renamed, its indexes made again. The stored definition is reused as it is minus AUTOINCREMENT, so
 * columns added by later migrations (and by agents) come along in their order.
 */
async function dropAutoincrement(db: Kysely<unknown>, table: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const definition = await sql<{ sql: string }>`select sql from sqlite_master where type = 'table' and name = ${table}`.execute(trx);
    const createSql = definition.rows[0]?.sql;
    if (!createSql || !/\bautoincrement\b/i.test(createSql)) return;
    const indexes = await sql<{
      sql: string;
    }>`select sql from sqlite_master where type = 'index' and tbl_name = ${table} and sql is not null`.execute(trx);
    const copy = `${table}_without_autoincrement`;
    const copySql = createSql.replace(/\bautoincrement\b/i, '').replace(/^(\s*create\s+table\s+)("[^"]+"|\S+)/i, `$1"${copy}"`);
    await sql.raw(`drop table if exists "${copy}"`).execute(trx);
    await sql.raw(copySql).execute(trx);
    await sql.raw(`insert into "${copy}" select * from "${table}"`).execute(trx);
    await sql.raw(`drop table "${table}"`).execute(trx);
    await sql.raw(`alter table "${copy}" rename to "${table}"`).execute(trx);
    for (const index of indexes.rows) await sql.raw(index.sql).execute(trx);
  });
}
