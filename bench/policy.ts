/**
 * Cedar policy benchmark: what a decision costs the runtime per tool call.
 *
 * Rows: decideCall for a read-only call and for a mutable one, and mayApprove over 20 candidate
 * approvers (what a proposal pays to name who can approve), each uncached (a different resource
 * every time, so every request reaches the Cedar engine) and repeated (the same request, answered
 * from the per-set memory). BENCH_QUICK=1 runs fewer iterations.
 */
import { createCedarPolicy, loadPolicyDirectory, type PolicyCall } from '../src/core/policy/index.ts';
import { type BenchRow, printTable, summarise, writeResults } from './bench-report.ts';

const iterations = process.env.BENCH_QUICK === '1' ? 500 : 3000;
const policy = createCedarPolicy(loadPolicyDirectory());
const user = { username: 'john_doe', roles: ['user'], teams: ['engineering'] };
const candidates = Array.from({ length: 20 }, (_, i) => ({ username: `person${i}`, roles: [i % 3 === 0 ? 'approver' : 'user'] }));
const at = new Date('2026-11-23T10:00:00Z');
const grant = (access: string): PolicyCall => ({
  tool: 'grant_access_to_user',
  agent: 'access',
  mutable: true,
  risk: 'medium',
  args: { access_name: access },
});
const read = (access: string): PolicyCall => ({
  tool: 'get_access',
  agent: 'access',
  mutable: false,
  risk: 'low',
  args: { access_name: access },
});

function measure(system: string, run: (i: number) => unknown): BenchRow {
  for (let i = 0; i < 100; i++) run(i);
  const samples: number[] = [];
  const started = performance.now();
  for (let i = 0; i < iterations; i++) {
    const start = performance.now();
    run(i);
    samples.push(performance.now() - start);
  }
  const seconds = (performance.now() - started) / 1000;
  const { p50, p99 } = summarise(samples);
  return { system, perSecond: Math.round(iterations / seconds), p50Ms: p50, p99Ms: p99 };
}

const rows: BenchRow[] = [
  measure('decideCall read-only, uncached', (i) => policy.decideCall({ user, call: read(`A${i}-${Math.random()}`), at })),
  measure('decideCall read-only, repeated', () => policy.decideCall({ user, call: read('READ_DOCUMENTS'), at })),
  measure('decideCall mutable, uncached', (i) => policy.decideCall({ user, call: grant(`A${i}-${Math.random()}`), at })),
  measure('mayApprove + 20 candidates, uncached', (i) =>
    policy.mayApprove({ approver: user, requester: user, call: grant(`W${i}-${Math.random()}`), approvalsSoFar: [], candidates, at }),
  ),
  measure('mayApprove + 20 candidates, repeated', () =>
    policy.mayApprove({ approver: user, requester: user, call: grant('DB_WRITE_PROD'), approvalsSoFar: [], candidates, at }),
  ),
];
printTable('Cedar policy decisions', rows);
writeResults('policy', rows);
