import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CommandHistory } from '../../src/agents/troubleshoot/history/command-history.ts';
import { HostRepository } from '../../src/agents/troubleshoot/hosts/host-repository.ts';
import { troubleshootMigrations } from '../../src/agents/troubleshoot/store/migrations.ts';
import { type TestStore, testStoreFactories } from '../../src/testing/test-stores.ts';
import { MemorySecretStore } from './helpers.ts';

describe.each(testStoreFactories())('hosts and command_history on $dialect', (factory) => {
  let testStore: TestStore;
  let hosts: HostRepository;
  let history: CommandHistory;

  beforeEach(async () => {
    testStore = await factory.create(troubleshootMigrations);
    hosts = new HostRepository(testStore.store, new MemorySecretStore());
    history = new CommandHistory(testStore.store);
  });
  afterEach(async () => {
    await testStore.dispose();
  });

  it('AR-02 command_history keeps the proposal, approval and execution of one command', async () => {
    const host = await hosts.add({ name: 'web-1', address: '10.0.0.5', username: 'ops', auth: { kind: 'password', password: 's3cret' } });
    expect(host).toMatchObject({ port: 22, os: 'unknown', authKind: 'password', secretName: 'troubleshoot/host/web-1' });
    expect(JSON.stringify(await hosts.list())).not.toContain('s3cret');
    const { entry, created } = await history.propose({
      sessionId: 's',
      hostId: host.id,
      userId: 1,
      toolCallId: 'c1',
      command: "df -h | grep '/$'",
      status: 'proposed',
      at: '2026-01-01T00:00:00.000Z',
    });
    expect(created).toBe(true);
    expect(
      (
        await history.propose({
          sessionId: 's',
          hostId: host.id,
          userId: 1,
          toolCallId: 'c1',
          command: "df -h | grep '/$'",
          status: 'proposed',
          at: 'x',
        })
      ).created,
    ).toBe(false);
    await history.approve(entry.id, { at: '2026-01-01T00:00:01.000Z', approver: 'user:alice', rule: null });
    await history.finish(entry.id, {
      status: 'executed',
      exitStatus: 1,
      durationMs: 12.4,
      outputSha256: 'ab'.repeat(32),
      outputExcerpt: '',
      executedAt: '2026-01-01T00:00:02.000Z',
    });
    expect(await history.findByCall('c1')).toMatchObject({
      command: "df -h | grep '/$'",
      status: 'executed',
      exitStatus: 1,
      durationMs: 12,
      approver: 'user:alice',
      proposedAt: '2026-01-01T00:00:00.000Z',
      approvedAt: '2026-01-01T00:00:01.000Z',
      executedAt: '2026-01-01T00:00:02.000Z',
    });
  });

  it('AR-10 AR-11 feedback joined with command_history ranks thumbs-down first, then failures', async () => {
    const host = await hosts.add({ name: 'web-1', address: '10.0.0.5', username: 'ops', auth: { kind: 'key', privateKey: 'k' } });
    const add = async (callId: string, command: string, exit: number) => {
      const { entry } = await history.propose({
        sessionId: 's',
        hostId: host.id,
        userId: 1,
        toolCallId: callId,
        command,
        status: 'proposed',
        at: '2026-01-01T00:00:00.000Z',
      });
      await history.finish(entry.id, {
        status: 'executed',
        exitStatus: exit,
        durationMs: 1,
        outputSha256: '',
        outputExcerpt: '',
        executedAt: '2026-01-01T00:00:00.000Z',
      });
    };
    await add('c1', 'systemctl restart app', 1);
    await add('c2', 'df -h', 0);
    await add('c3', 'uptime', 0);
    await testStore.store.db
      .insertInto('feedback')
      .values({ session_id: 's', user_id: 1, target: 'c2', rating: -1, comment: 'wrong disk', created_at: '2026-01-01T00:00:00.000Z' })
      .execute();
    const items = await history.feedbackForHost(host.id);
    expect(items.map((i) => [i.command, i.rating, i.exitStatus])).toEqual([
      ['df -h', -1, 0],
      ['systemctl restart app', null, 1],
    ]);
  });
});
