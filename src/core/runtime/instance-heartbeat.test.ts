import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../audit/index.ts';
import { openStore, type Store } from '../store/index.ts';
import { SessionEvents } from './events.ts';
import { InstanceHeartbeat } from './instance-heartbeat.ts';
import { RuntimeInstance } from './runtime-instance.ts';
import { ToolCallLifecycle } from './tool-call-lifecycle.ts';

const now = () => new Date();

function heartbeatOf(store: Store, id: string): InstanceHeartbeat {
  const audit = new AuditLog(store, now);
  return new InstanceHeartbeat({
    store,
    audit,
    instance: new RuntimeInstance(store, id, now),
    lifecycle: new ToolCallLifecycle(audit, new SessionEvents(store, now)),
    now,
    load: () => Promise.reject(new Error('no session is left running in this test')),
    logger: pino({ level: 'silent' }),
    intervalMs: 2,
  });
}

/** Counts the heartbeat's statements: beats (the heartbeat update) and recovery reads (calls left executing). */
function countedStatements() {
  const counts = { beats: 0, recoveryReads: 0 };
  const onStatement = (text: string) => {
    if (text.startsWith('update "runtime_instances"')) counts.beats += 1;
    if (/from "tool_calls" where "status"/.test(text)) counts.recoveryReads += 1;
  };
  return { counts, onStatement };
}

async function untilBeats(counts: { beats: number }, beats: number): Promise<void> {
  for (let attempt = 0; attempt < 2000 && counts.beats < beats; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 2));
  expect(counts.beats).toBeGreaterThanOrEqual(beats);
}

describe('InstanceHeartbeat', () => {
  const stops: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  });

  it('only the live replica with the lowest id runs the recovery reads at its beats; when it stops, the next one does', async () => {
    const { counts, onStatement } = countedStatements();
    const store = await openStore({ databaseUrl: '', sqlitePath: ':memory:', onStatement });
    stops.push(() => store.close());
    const leader = heartbeatOf(store, 'instance-a');
    const other = heartbeatOf(store, 'instance-b');
    await leader.start();
    await other.start();
    stops.push(() => other.stop());
    // Each start recovers once, whoever leads.
    expect(counts.recoveryReads).toBe(2);

    const before = { ...counts };
    await untilBeats(counts, before.beats + 20);
    await leader.stop();
    const beats = counts.beats - before.beats;
    const recoveryReads = counts.recoveryReads - before.recoveryReads;
    // Every beat of both replicas read for recovery before: as many reads as beats.
    expect(recoveryReads).toBeGreaterThan(0);
    expect(recoveryReads * 2).toBeLessThanOrEqual(beats + 2);

    const alone = { ...counts };
    await untilBeats(counts, alone.beats + 5);
    expect(counts.recoveryReads - alone.recoveryReads).toBeGreaterThanOrEqual(counts.beats - alone.beats - 1);
  });
});
