import { sql } from 'kysely';
import type { Store } from '../../src/core/store/index.ts';

/**
 * PostgreSQL backends report their transactions to `pg_stat_database` when idle, at most once a
 * second, else 10 s later: the parent's counters would charge the measured run with the warm-up's.
 * Every pooled connection is asked to report at its next idle moment (the queries overlap, so each
 * runs on a connection of its own).
 */
export async function flushBackendStatistics(store: Store): Promise<void> {
  if (store.dialect !== 'postgres') return;
  await Promise.all(Array.from({ length: store.poolSize }, () => sql`select pg_stat_force_next_flush(), pg_sleep(0.05)`.execute(store.db)));
}
