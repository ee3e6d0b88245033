import pg from 'pg';
import type { PostgresCluster } from '../../../src/testing/postgres-cluster.ts';

/**
 * The cluster's WAL fsyncs so far (`pg_stat_wal`, counted only with fsync on). Backends report
 * theirs when they exit, so callers close their pools first; the count is read until it settles.
 */
export async function walSyncs(cluster: PostgresCluster): Promise<number> {
  let last = -1;
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const client = new pg.Client({ connectionString: cluster.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ wal_sync: string }>('select wal_sync from pg_stat_wal');
      const now = Number(rows[0]!.wal_sync);
      if (now === last) return now;
      last = now;
    } finally {
      await client.end();
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return last;
}
