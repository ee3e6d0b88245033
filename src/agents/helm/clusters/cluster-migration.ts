import { type Generated, type Kysely, sql } from 'kysely';
import type { StoreMigration } from '../../../core/store/index.ts';

/** One registered target cluster. The kubeconfig is a path on the server, never its content. */
export interface HelmClustersTable {
  id: Generated<number>;
  name: string;
  /** Null: the server's default (its current context, or the pod's in-cluster identity). */
  kube_context: string | null;
  kubeconfig: string | null;
  /** A free label such as production, staging or dev; Cedar policies read it. */
  environment: string;
  /** JSON array of namespace names (or `*`). */
  namespaces: string;
  created_at: string;
}

export type HelmClustersDatabase = {
  helm_clusters: HelmClustersTable;
};

/** The registry of target clusters (issue 20, "several clusters"). */
export const helmClustersMigration: StoreMigration = {
  name: 'helm-002-clusters',
  async up(db: Kysely<unknown>, dialect) {
    const autoId = dialect === 'postgres' ? sql`serial primary key` : sql`integer primary key autoincrement`;
    await db.schema
      .createTable('helm_clusters')
      .addColumn('id', autoId as never)
      .addColumn('name', 'text', (c) => c.notNull().unique())
      .addColumn('kube_context', 'text')
      .addColumn('kubeconfig', 'text')
      .addColumn('environment', 'text', (c) => c.notNull())
      .addColumn('namespaces', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
  },
};
