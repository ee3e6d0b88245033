import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditLog } from '../../../src/core/audit/index.ts';
import { openStore, type Store } from '../../../src/core/store/index.ts';
import { type PostgresCluster, postgresBinDir, startPostgresCluster } from '../../../src/testing/postgres-cluster.ts';
import { approve, createFaultUsers, type HttpAnswer, portClient, propose, type Send } from './ledger-server.ts';

const SESSIONS_PER_REPLICA = 8;
const MAX_POLLS = 300;

interface Replica {
  readonly child: ChildProcess;
  readonly send: Send;
}

function startReplica(databaseUrl: string, transferLog: string): Promise<Replica> {
  const child = spawn(process.execPath, ['--no-warnings', join(import.meta.dirname, 'replica-child.ts'), databaseUrl, transferLog], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /PORT (\d+)/.exec(output);
      if (match) resolve({ child, send: portClient(`http://127.0.0.1:${match[1]}`) });
    });
    child.once('exit', (code) => reject(new Error(`replica exited with ${code} before listening`)));
  });
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once('exit', () => resolve()));
}

// Its own cluster and three real server processes; bounded by attempts, not by time.
describe.skipIf(!postgresBinDir())('kill -9 of one of three replicas under load', () => {
  let cluster: PostgresCluster;
  let store: Store;
  let dir: string;
  const replicas: Replica[] = [];

  beforeAll(async () => {
    cluster = startPostgresCluster();
    dir = mkdtempSync(join(tmpdir(), 'opsgate-replicas-'));
    store = await openStore({ databaseUrl: cluster.url, poolSize: 2 });
  });
  afterAll(async () => {
    for (const replica of replicas) {
      replica.child.kill('SIGTERM');
      await exited(replica.child);
    }
    await store?.close();
    cluster?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the other two keep serving, the dead one’s sessions continue elsewhere, nothing is lost or run twice, the audit verifies', async () => {
    const tokens = await createFaultUsers(store);
    const transferLog = join(dir, 'transfers.jsonl');
    for (let i = 0; i < 3; i += 1) replicas.push(await startReplica(cluster.url, transferLog));

    // Every session pauses on its transfer, proposed on replica i % 3; amount = session number.
    const sessions = await Promise.all(
      Array.from({ length: 3 * SESSIONS_PER_REPLICA }, async (_, i) => ({
        amount: i + 1,
        home: i % 3,
        ...(await propose(replicas[i % 3]!.send, tokens.user, i + 1)),
      })),
    );

    // Approvals go out at once to each session's own replica, except half of replica 0's, which
    // wait; replica 0 is killed while its approvals are in flight. A request the dead replica
    // dropped is sent again to a live one, as a load balancer would.
    const onDead = sessions.filter((s) => s.home === 0);
    const deferred = new Set(onDead.slice(SESSIONS_PER_REPLICA / 2).map((s) => s.sessionId));
    const answers = new Map<string, HttpAnswer>();
    const liveAnswers: HttpAnswer[] = [];
    const decide = async (session: (typeof sessions)[number], replica: number) => {
      try {
        const answer = await approve(replicas[replica]!.send, tokens.approver, session.sessionId, session.callId);
        answers.set(session.sessionId, answer);
        if (replica !== 0) liveAnswers.push(answer);
      } catch {
        answers.set(session.sessionId, await approve(replicas[1]!.send, tokens.approver, session.sessionId, session.callId));
      }
    };
    const inFlight = sessions.filter((s) => !deferred.has(s.sessionId)).map((s) => decide(s, s.home));
    // Killed once the first decision has come back: the others are being processed meanwhile.
    await Promise.race(inFlight);
    replicas[0]!.child.kill('SIGKILL');
    await Promise.all(inFlight);
    await exited(replicas[0]!.child);
    // The sessions the dead replica had proposed and never touched again continue on replica 2.
    await Promise.all(onDead.filter((s) => deferred.has(s.sessionId)).map((s) => decide(s, 2)));

    expect(liveAnswers.every((answer) => answer.status === 200 && answer.body.status === 'completed')).toBe(true);
    for (const session of onDead.filter((s) => deferred.has(s.sessionId)))
      expect(answers.get(session.sessionId)?.body.status).toBe('completed');

    // The live replicas recover what the dead one left executing (its pid is gone): unknown, never re-run.
    let calls: Array<{ session_id: string; status: string; args: string }> = [];
    for (let poll = 0; poll < MAX_POLLS; poll += 1) {
      calls = await store.db.selectFrom('tool_calls').select(['session_id', 'status', 'args']).where('tool', '=', 'transfer').execute();
      if (calls.every((call) => call.status !== 'executing' && call.status !== 'approved')) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const statusOf = new Map(calls.map((call) => [(JSON.parse(call.args) as { amount: number }).amount, call.status]));
    expect([...statusOf.values()].every((status) => status === 'executed' || status === 'unknown' || status === 'proposed')).toBe(true);

    const logged = existsSync(transferLog)
      ? readFileSync(transferLog, 'utf8')
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as { amount: number; pid: number })
      : [];
    const amounts = logged.map((t) => t.amount);
    expect(new Set(amounts).size).toBe(amounts.length); // nothing ran twice
    for (const [amount, status] of statusOf) {
      if (status === 'executed') expect(amounts).toContain(amount); // nothing executed without its side effect
      if (status === 'unknown') expect(logged.find((t) => t.amount === amount)?.pid ?? replicas[0]!.child.pid).toBe(replicas[0]!.child.pid);
    }
    // Every session not in flight on the dead replica completed.
    const completed = [...statusOf.values()].filter((status) => status === 'executed').length;
    expect(completed).toBeGreaterThanOrEqual(2 * SESSIONS_PER_REPLICA + SESSIONS_PER_REPLICA / 2);

    const audit = new AuditLog(store);
    expect(await audit.verify()).toMatchObject({ ok: true });
    const executedEvents = (await audit.list({ type: 'tool_executed', limit: 1000 })).filter((e) => e.payload.tool === 'transfer');
    expect(executedEvents).toHaveLength(completed);
  });
});
