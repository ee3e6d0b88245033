import type { Kysely } from 'kysely';
import type { StoreMigration } from '../../../../core/store/index.ts';

/** Tables of the simulated cluster: namespaces, release revisions, pods, workloads and injected faults. */
export interface SimulatorDatabase {
  helm_sim_namespaces: { name: string; created_at: string };
  helm_sim_releases: {
    namespace: string;
    name: string;
    revision: number;
    status: string;
    chart_name: string;
    chart_version: string;
    app_version: string;
    /** JSON of the chart metadata. */
    chart_metadata: string;
    description: string;
    /** JSON of the user-supplied values. */
    config: string;
    manifest: string;
    first_deployed: string;
    updated: string;
    /** JSON of the release's hooks (`ReleaseHook[]` with their manifests). */
    hooks: string;
  };
  helm_sim_pods: {
    namespace: string;
    release: string;
    name: string;
    status: string;
    ready: number;
    restarts: number;
    /** JSON of the pod's labels (its workload's template labels). */
    labels: string;
  };
  helm_sim_workloads: {
    namespace: string;
    release: string;
    kind: string;
    name: string;
    condition: string | null;
    /** JSON of the object as `kubectl get -o json` shows it, status included. */
    object: string;
  };
  helm_sim_faults: { kind: string; release: string; detail: string; created_at: string };
}

const helmSimulatorMigration: StoreMigration = {
  name: 'helm-001-simulated-cluster',
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('helm_sim_namespaces')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('helm_sim_releases')
      .addColumn('namespace', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('revision', 'integer', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('chart_name', 'text', (c) => c.notNull())
      .addColumn('chart_version', 'text', (c) => c.notNull())
      .addColumn('app_version', 'text', (c) => c.notNull())
      .addColumn('chart_metadata', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull())
      .addColumn('config', 'text', (c) => c.notNull())
      .addColumn('manifest', 'text', (c) => c.notNull())
      .addColumn('first_deployed', 'text', (c) => c.notNull())
      .addColumn('updated', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('helm_sim_releases_pk', ['namespace', 'name', 'revision'])
      .execute();
    await db.schema
      .createTable('helm_sim_pods')
      .addColumn('namespace', 'text', (c) => c.notNull())
      .addColumn('release', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('ready', 'integer', (c) => c.notNull())
      .addColumn('restarts', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('helm_sim_pods_pk', ['namespace', 'name'])
      .execute();
    await db.schema
      .createTable('helm_sim_workloads')
      .addColumn('namespace', 'text', (c) => c.notNull())
      .addColumn('release', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('condition', 'text')
      .addPrimaryKeyConstraint('helm_sim_workloads_pk', ['namespace', 'kind', 'name'])
      .execute();
    await db.schema
      .createTable('helm_sim_faults')
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('release', 'text', (c) => c.notNull())
      .addColumn('detail', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('helm_sim_faults_pk', ['kind', 'release'])
      .execute();
  },
};

/**
 * What the simulator needs to model the states of a real cluster: a release's hooks (kept apart
 * from its manifest, as Helm does), workloads as Kubernetes objects with their status, and pods
 * with labels so that they are found by a workload's selector.
 */
const helmSimulatorStatesMigration: StoreMigration = {
  name: 'helm-002-release-states',
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('helm_sim_releases')
      .addColumn('hooks', 'text', (c) => c.notNull().defaultTo('[]'))
      .execute();
    await db.schema
      .alterTable('helm_sim_workloads')
      .addColumn('object', 'text', (c) => c.notNull().defaultTo('{}'))
      .execute();
    await db.schema
      .alterTable('helm_sim_pods')
      .addColumn('labels', 'text', (c) => c.notNull().defaultTo('{}'))
      .execute();
  },
};

/** Every migration of the simulated cluster, in order. */
export const helmSimulatorMigrations: readonly StoreMigration[] = [helmSimulatorMigration, helmSimulatorStatesMigration];
