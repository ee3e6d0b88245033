import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditLog } from '../../../src/core/audit/index.ts';
import { openStore, type Store } from '../../../src/core/store/index.ts';
import { approve, createFaultUsers, injectClient, type LedgerServer, propose, startLedgerServer } from './ledger-server.ts';

const isRoot = process.getuid?.() === 0;

/** Writes zeros to `path` until the disk says ENOSPC. */
function fillDisk(path: string): void {
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
}

// A small tmpfs of our own (root only), so that filling it disturbs nothing else.
describe.skipIf(!isRoot)('SQLite with the disk full', () => {
  let mountPoint: string;
  beforeAll(() => {
    mountPoint = mkdtempSync(join(tmpdir(), 'opsgate-full-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=6m', 'tmpfs', mountPoint]);
  });
  afterAll(() => {
    execFileSync('umount', ['-l', mountPoint]);
    rmSync(mountPoint, { recursive: true, force: true });
  });

  it('a write answers the typed STORE_FULL error; what was stored before stays intact and verifies after reopening', async () => {
    const sqlitePath = join(mountPoint, 'opsgate.db');
    let store: Store = await openStore({ sqlitePath, databaseUrl: '' });
    const tokens = await createFaultUsers(store);
    let server: LedgerServer = await startLedgerServer(store);
    let send = injectClient(server.app);
    const stored = await propose(send, tokens.user, 21);
    expect((await approve(send, tokens.approver, stored.sessionId, stored.callId)).body.status).toBe('completed');
    const pending = await propose(send, tokens.user, 22);

    const filler = join(mountPoint, 'filler');
    fillDisk(filler);
    const refused: Array<{ status: number; body: Record<string, unknown> }> = [];
    for (let attempt = 0; attempt < 20 && refused.length === 0; attempt += 1) {
      const answer = await send('POST', '/api/sessions', tokens.user, { agent: 'ledger' });
      if (answer.status !== 201) refused.push(answer);
      else
        await send('POST', `/api/sessions/${answer.body.id}/messages`, tokens.user, { text: `pay bob ${100 + attempt}` }).then((turn) => {
          if (turn.status !== 200) refused.push(turn);
        });
    }
    expect(refused[0]).toMatchObject({ status: 507, body: { code: 'STORE_FULL' } });

    await server.close().catch(() => undefined);
    await store.close().catch(() => undefined);
    rmSync(filler);

    store = await openStore({ sqlitePath, databaseUrl: '' });
    server = await startLedgerServer(store);
    send = injectClient(server.app);
    try {
      const before = await send('GET', `/api/sessions/${stored.sessionId}`, tokens.user);
      expect(before.body).toMatchObject({ status: 'idle' });
      const calls = before.body.toolCalls as Array<{ tool: string; status: string }>;
      expect(calls.find((call) => call.tool === 'transfer')?.status).toBe('executed');
      // The call that was waiting when the disk filled is still waiting, and runs once now.
      expect((await approve(send, tokens.approver, pending.sessionId, pending.callId)).body.status).toBe('completed');
      expect(server.recorder.transfers.map((t) => t.amount)).toEqual([22]);
      expect(await new AuditLog(store).verify()).toMatchObject({ ok: true });
    } finally {
      await server.close();
      await store.close();
    }
  });
});
