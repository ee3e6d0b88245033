import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { type PostgresEngineOptions, PostgresSandboxEngine } from '../../src/agents/sandbox/engines/postgres-engine.ts';
import { type PostgresCluster, postgresBinDir, startPostgresCluster } from '../../src/testing/postgres-cluster.ts';
import { testDatabaseUrl } from '../../src/testing/test-stores.ts';

/** True where a PostgreSQL can be had: the suite's throwaway cluster (`npm test`) or an installed server. */
export const postgresAvailable = Boolean(testDatabaseUrl) || postgresBinDir() !== undefined;

/**
 * The demo shop of `demo/seed.sql` on PostgreSQL (its view groups by every selected column, as
 * PostgreSQL requires), plus what the attack corpus names: a sequence, and the `dblink` extension
 * that an admin installed, as a user's database might have it.
 */
function seed(): string {
  const sqlite = readFileSync(new URL('../../src/agents/sandbox/demo/seed.sql', import.meta.url), 'utf8');
  return `${sqlite.replace('GROUP BY o.id;', 'GROUP BY o.id, c.name, o.status;')}
CREATE SEQUENCE orders_id_seq;
CREATE FUNCTION order_count() RETURNS bigint LANGUAGE sql STABLE AS 'SELECT count(*) FROM orders';
CREATE VIEW order_count_view AS SELECT order_count() AS n;`;
}

/**
 * A database on a real PostgreSQL owned by a fresh non-superuser role, as users run it: the role
 * owns its tables. `admin` is the cluster's superuser connection (to watch locks and other sessions).
 */
export interface PostgresSandbox {
  readonly url: string;
  readonly role: string;
  readonly admin: pg.Client;
  /** Runs SQL as the owning role (to create what a test needs). */
  asOwner(sql: string): Promise<void>;
  connect(options?: PostgresEngineOptions): Promise<PostgresSandboxEngine>;
  /**
   * sha256 over every user table's rows, the database's catalog (relations, functions, types,
   * namespaces, large objects, settings stored per role or database) and the sequences' values.
   */
  fingerprint(): Promise<string>;
  /** Advisory locks, temporary relations and sessions other than the admin's, across the cluster. */
  sessionTraces(): Promise<{ advisoryLocks: number; temporaryRelations: number }>;
  dispose(): Promise<void>;
}

const CATALOG_FINGERPRINT = `
SELECT json_build_object(
  'relations', (SELECT json_agg(json_build_array(c.oid, c.relname, c.relkind, c.relnamespace, c.relacl::text) ORDER BY c.oid) FROM pg_class c),
  'functions', (SELECT json_agg(json_build_array(p.oid, p.proname, p.provolatile, md5(p.prosrc)) ORDER BY p.oid) FROM pg_proc p),
  'types', (SELECT count(*) FROM pg_type),
  'namespaces', (SELECT json_agg(n.nspname ORDER BY n.oid) FROM pg_namespace n),
  'largeObjects', (SELECT count(*) FROM pg_largeobject_metadata),
  'settings', (SELECT json_agg(s.setconfig::text) FROM pg_db_role_setting s),
  'extensions', (SELECT json_agg(e.extname ORDER BY e.oid) FROM pg_extension e),
  'sequence', (SELECT last_value FROM orders_id_seq),
  'rows', (SELECT json_build_array(
    (SELECT md5(string_agg(t::text, ',' ORDER BY t.id)) FROM customers t),
    (SELECT md5(string_agg(t::text, ',' ORDER BY t.id)) FROM products t),
    (SELECT md5(string_agg(t::text, ',' ORDER BY t.id)) FROM orders t),
    (SELECT md5(string_agg(t::text, ',' ORDER BY t.order_id, t.product_id)) FROM order_items t)))
)::text AS fingerprint`;

/** A file run alone (no suite cluster) starts one cluster, shared by its sandboxes and stopped with the last. */
let ownCluster: { cluster: PostgresCluster; users: number } | undefined;

function adminUrlFor(): string {
  if (testDatabaseUrl) return testDatabaseUrl;
  ownCluster ??= { cluster: startPostgresCluster(), users: 0 };
  ownCluster.users += 1;
  return ownCluster.cluster.url;
}

function releaseCluster(): void {
  if (!ownCluster) return;
  ownCluster.users -= 1;
  if (ownCluster.users > 0) return;
  ownCluster.cluster.dispose();
  ownCluster = undefined;
}

export async function startPostgresSandbox(): Promise<PostgresSandbox> {
  const adminUrl = adminUrlFor();
  const suffix = randomBytes(4).toString('hex');
  const role = `sandbox_${suffix}`;
  const database = `sandbox_${suffix}`;
  const bootstrap = new pg.Client({ connectionString: adminUrl });
  await bootstrap.connect();
  await bootstrap.query(`CREATE ROLE ${role} LOGIN`);
  await bootstrap.query(`CREATE DATABASE ${database} OWNER ${role}`);
  await bootstrap.end();
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  const admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  // dblink is not a trusted extension: the admin installs it, the application role may call it.
  await admin.query('CREATE EXTENSION dblink');
  url.username = role;
  const ownerUrl = url.toString();
  const asOwner = async (sql: string) => {
    const owner = new pg.Client({ connectionString: ownerUrl });
    await owner.connect();
    try {
      await owner.query(sql);
    } finally {
      await owner.end();
    }
  };
  await asOwner(seed());
  const engines: PostgresSandboxEngine[] = [];
  return {
    url: ownerUrl,
    role,
    admin,
    asOwner,
    async connect(options) {
      const engine = await PostgresSandboxEngine.connect(ownerUrl, options);
      engines.push(engine);
      return engine;
    },
    async fingerprint() {
      const { rows } = await admin.query<{ fingerprint: string }>(CATALOG_FINGERPRINT);
      return createHash('sha256').update(rows[0]!.fingerprint).digest('hex');
    },
    async sessionTraces() {
      // This database's locks only: the test cluster is shared, and other suites' audit sealers take
      // advisory locks in their own databases while these tests run.
      const { rows } = await admin.query<{ advisory: number; temporary: number }>(
        `SELECT (SELECT count(*)::int FROM pg_locks WHERE locktype = 'advisory'
                   AND database = (SELECT oid FROM pg_database WHERE datname = current_database())) AS advisory,
                (SELECT count(*)::int FROM pg_class WHERE relpersistence = 't') AS temporary`,
      );
      return { advisoryLocks: rows[0]!.advisory, temporaryRelations: rows[0]!.temporary };
    },
    async dispose() {
      for (const engine of engines) await engine.close().catch(() => {});
      await admin.end();
      if (!testDatabaseUrl) {
        releaseCluster();
        return;
      }
      const cleanup = new pg.Client({ connectionString: adminUrl });
      await cleanup.connect();
      try {
        await cleanup.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
        await cleanup.query(`DROP ROLE IF EXISTS ${role}`);
      } finally {
        await cleanup.end();
      }
    },
  };
}
