import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostRepository } from '../../src/agents/troubleshoot/hosts/host-repository.ts';
import { ShellPool } from '../../src/agents/troubleshoot/ssh/shell-pool.ts';
import { troubleshootMigrations } from '../../src/agents/troubleshoot/store/migrations.ts';
import { sqliteTestStore, type TestStore } from '../../src/testing/test-stores.ts';
import { sshdAvailable, startTestSshd, type TestSshd } from '../support/sshd.ts';
import { MemorySecretStore } from './helpers.ts';

describe.skipIf(!sshdAvailable())('ShellSession over a real sshd', () => {
  let sshd: TestSshd;
  let testStore: TestStore;
  let hosts: HostRepository;
  let pool: ShellPool;

  beforeAll(async () => {
    sshd = await startTestSshd();
    testStore = await sqliteTestStore.create(troubleshootMigrations);
    hosts = new HostRepository(testStore.store, new MemorySecretStore());
    await hosts.add({
      name: 'local',
      address: sshd.host,
      port: sshd.port,
      username: sshd.username,
      auth: { kind: 'key', privateKey: sshd.privateKey },
      hostKeySha256: sshd.hostKeyFingerprint,
    });
    pool = new ShellPool({ hosts });
  });
  afterAll(async () => {
    await pool?.closeAll();
    await testStore?.dispose();
    await sshd?.stop();
  });

  it('runs a command and reports output and exit status', async () => {
    const host = await hosts.get('local');
    let seen = '';
    const shell = await pool.shellFor('s1', host, (chunk) => {
      seen += chunk;
    });
    const ok = await shell.run('echo hello; echo world', { softTimeoutMs: 10_000 });
    expect(ok.status).toBe('completed');
    expect(ok.exitStatus).toBe(0);
    expect(ok.output.replace(/\r/g, '')).toBe('hello\nworld\n');
    const bad = await shell.run('ls /definitely/not/here', { softTimeoutMs: 10_000 });
    expect(bad.exitStatus).toBe(2);
    expect(bad.output).toContain('No such file');
    expect(seen).toContain('ls /definitely/not/here');
    const pager = await shell.run('seq 1 500 > /tmp/opsgate-long.txt; less /tmp/opsgate-long.txt', { softTimeoutMs: 10_000 });
    expect(pager.status).toBe('completed');
    expect(pager.pagerQuits).toBeGreaterThan(0);
  });
});
