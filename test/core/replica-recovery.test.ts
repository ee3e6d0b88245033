import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../../src/core/runtime/index.ts';
import { openStore, type Store } from '../../src/core/store/index.ts';
import { createLedgerAgent, createLedgerModel, type LedgerRecorder } from '../../src/testing/index.ts';

const alice = { userId: 1, username: 'alice', roles: ['user'] };

describe('recovery with several runtime instances on one store', () => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  it("a starting replica leaves a live replica's executing call alone, and recovers it once that replica stops heart-beating", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opsgate-replicas-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'opsgate.db');
    const open = async (): Promise<Store> => {
      const store = await openStore({ sqlitePath: path, databaseUrl: '' });
      cleanup.push(() => store.close());
      return store;
    };
    let release: () => void = () => {};
    let started: () => void = () => {};
    const transferStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    const recorder: LedgerRecorder = {
      reads: 0,
      transfers: [],
      holdTransfer: new Promise<void>((resolve) => {
        release = resolve;
      }),
      onTransferStart: () => started(),
    };
    const storeA = await open();
    const replicaA: Runtime = await createRuntime({
      store: storeA,
      agents: [createLedgerAgent(recorder)],
      model: () => createLedgerModel(),
    });
    const session = await replicaA.startSession({ agent: 'ledger', identity: alice });
    const turn = await replicaA.send(session.id, 'pay bob 30', alice);
    const running = replicaA.decide(session.id, { type: 'approve', callId: turn.interrupt!.callId }, alice);
    await transferStarted;

    // Two runtimes on one store stand for two replicas: separate instances, one database. (Two
    // SQLite connections in one process would wait on each other's write groups synchronously.)
    const storeB = storeA;
    const replicaB = await createRuntime({
      store: storeB,
      agents: [createLedgerAgent({ reads: 0, transfers: [] })],
      model: () => createLedgerModel(),
    });
    cleanup.push(() => replicaB.close());
    const seenByB = await replicaB.getSession(session.id, alice);
    expect(seenByB.toolCalls.find((c) => c.tool === 'transfer')?.status).toBe('executing');
    expect(await replicaB.recover()).toEqual({ unknownCalls: 0, sessions: 0 });

    // Replica A goes silent: its heartbeat ages past the limit (as if its host died).
    await storeB.db.updateTable('runtime_instances').set({ heartbeat_at: '2000-01-01T00:00:00.000Z' }).where('id', '!=', '').execute();
    const recovered = await replicaB.recover();
    expect(recovered.unknownCalls).toBe(1);
    const after = await replicaB.getSession(session.id, alice);
    expect(after.toolCalls.find((c) => c.tool === 'transfer')?.status).toBe('unknown');
    expect(after.status).toBe('idle');

    release();
    await running.catch(() => undefined);
    await replicaA.close();
  });
});
