import type { BenchRow } from '../bench-report.ts';

/** One goal: what the run measured, the target, the ratio to it (≥ 1 is met) and by how much it is missed. */
export function goal(name: string, measured: number, target: number, higherIsBetter: boolean): BenchRow {
  const ratio = higherIsBetter ? measured / target : target / measured;
  const met = Number.isFinite(ratio) && ratio >= 1;
  return {
    system: name,
    measured: Number(measured.toFixed(3)),
    target: `${higherIsBetter ? '≥' : '≤'} ${target}`,
    ratio_to_goal: Number(ratio.toFixed(3)),
    met: Number.isNaN(ratio) ? 'not measured' : met ? 'yes' : `no, missed by ${Math.round((1 - ratio) * 100)} %`,
  };
}

/** Processes whose CPU per round trip (Node + PostgreSQL) is compared with one process's. */
export const REPLICA_COUNTS = [1, 2, 4, 8] as const;

/**
 * Issue 32's goals for `bench:load`, from the rows of one run (anchors included). The one-at-a-time
 * goal on SQLite (≥ 0.7× the AI SDK) is `bench:hitl-roundtrip`'s.
 */
export function loadGoalsOf(rows: readonly BenchRow[]): BenchRow[] {
  const find = (system: string, processes: number, concurrency: number) =>
    rows.find((row) => String(row.system).startsWith(system) && row.processes === processes && row.concurrency === concurrency);
  const postgres = (processes: number, concurrency: number) => find('opsgate postgres', processes, concurrency);
  const aiSdk = find('anchor: AI SDK', 1, 64);
  const rate = (row: BenchRow | undefined) => Number(row?.scenarios_per_s ?? Number.NaN);
  const at = (row: BenchRow | undefined, column: string) => Number(row?.[column] ?? Number.NaN);
  const cpu = (row: BenchRow | undefined) => at(row, 'node_cpu_ms_per_scenario') + at(row, 'pg_cpu_ms_per_scenario');
  const alone = postgres(1, 1);
  const goals = [
    goal('PG C=64, 1 process / AI SDK', rate(postgres(1, 64)) / rate(aiSdk), 0.8, true),
    goal('PG C=64, 1 process / AI SDK (moonshot)', rate(postgres(1, 64)) / rate(aiSdk), 1, true),
    goal('PG C=64, 1 process: Node CPU ms per round trip', at(postgres(1, 64), 'node_cpu_ms_per_scenario'), 1, false),
    goal('PG C=1: transactions per round trip', at(alone, 'xact_per_scenario'), 4, false),
    goal('PG C=1: WAL fsyncs per round trip', at(alone, 'wal_syncs_per_scenario'), 2, false),
  ];
  for (const concurrency of [64, 256]) {
    goals.push(
      goal(
        `PG C=${concurrency}: CPU (Node + PG) per round trip, 8 processes / 1`,
        cpu(postgres(8, concurrency)) / cpu(postgres(1, concurrency)),
        1.3,
        false,
      ),
    );
  }
  const twelve = postgres(12, 256);
  if (twelve) goals.push(goal('PG C=256: CPU per round trip, 12 processes / 8 (no rise)', cpu(twelve) / cpu(postgres(8, 256)), 1, false));
  const opsgateRows = rows.filter((row) => String(row.system).startsWith('opsgate'));
  const clean = opsgateRows.filter((row) => row.errors === 0 && row.exactly_once === true && row.audit_verifies === true).length;
  goals.push(goal('opsgate rows with 0 errors, exactly once, audit verifies', clean / opsgateRows.length, 1, true));
  return goals;
}

/** The replicas table of issue 32: per process count and C, throughput and CPU per round trip against one process. */
export function replicaTableOf(rows: readonly BenchRow[]): BenchRow[] {
  const postgres = rows.filter((row) => String(row.system).startsWith('opsgate postgres') && row.concurrency !== 1);
  const cpu = (row: BenchRow) => Number(row.node_cpu_ms_per_scenario) + Number(row.pg_cpu_ms_per_scenario);
  return postgres.map((row) => {
    const one = postgres.find((other) => other.processes === 1 && other.concurrency === row.concurrency);
    return {
      system: `${row.processes} process${row.processes === 1 ? '' : 'es'}`,
      concurrency: row.concurrency as number,
      scenarios_per_s: row.scenarios_per_s as number,
      rate_vs_one: one ? Number((Number(row.scenarios_per_s) / Number(one.scenarios_per_s)).toFixed(2)) : '-',
      node_cpu_ms: row.node_cpu_ms_per_scenario as number,
      pg_cpu_ms: row.pg_cpu_ms_per_scenario as number,
      cpu_ms: Number(cpu(row).toFixed(2)),
      cpu_vs_one: one ? Number((cpu(row) / cpu(one)).toFixed(2)) : '-',
    };
  });
}
