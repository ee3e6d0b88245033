import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostRepository } from '../../src/agents/troubleshoot/hosts/host-repository.ts';
import { connectSsh, probeHostKey } from '../../src/agents/troubleshoot/ssh/ssh-connect.ts';
import { troubleshootMigrations } from '../../src/agents/troubleshoot/store/migrations.ts';
import { OpsgateError } from '../../src/core/errors/index.ts';
import { sqliteTestStore, type TestStore } from '../../src/testing/test-stores.ts';
import { sshdAvailable, startTestSshd, type TestSshd } from '../support/sshd.ts';
import { MemorySecretStore } from './helpers.ts';

describe.skipIf(!sshdAvailable())('host-key pinning against a real sshd', () => {
  let sshd: TestSshd;
  let testStore: TestStore;
  let secrets: MemorySecretStore;
  let hosts: HostRepository;

  beforeAll(async () => {
    sshd = await startTestSshd();
    testStore = await sqliteTestStore.create(troubleshootMigrations);
    secrets = new MemorySecretStore();
    hosts = new HostRepository(testStore.store, secrets);
  });
  afterAll(async () => {
    await testStore?.dispose();
    await sshd?.stop();
  });

  it('the first key is shown for confirmation, pinned only when confirmed, then used to connect', async () => {
    const added = await hosts.add({
      name: 'pin-me',
      address: sshd.host,
      port: sshd.port,
      username: sshd.username,
      auth: { kind: 'key', privateKey: sshd.privateKey },
    });
    expect(added.hostKeySha256).toBeUndefined();
    // The credentials went to the secret store; the row only names them.
    expect(added.secretName).toBe('troubleshoot/host/pin-me');
    expect(JSON.stringify(added)).not.toContain('PRIVATE KEY');
    expect(secrets.values.get('troubleshoot/host/pin-me')).toContain('PRIVATE KEY');

    expect(await probeHostKey(sshd.host, sshd.port)).toBe(sshd.hostKeyFingerprint);
    const unconfirmed = await connectSsh(added, await hosts.secretOf(added)).catch((error: unknown) => error);
    expect(OpsgateError.isInstance(unconfirmed) && unconfirmed.code).toBe('HOST_KEY_UNCONFIRMED');
    expect((unconfirmed as Error).message).toContain(sshd.hostKeyFingerprint);
    expect((await hosts.get('pin-me')).hostKeySha256).toBeUndefined();

    const pinned = await hosts.confirmHostKey('pin-me', sshd.hostKeyFingerprint);
    expect(pinned.hostKeySha256).toBe(sshd.hostKeyFingerprint);
    const client = await connectSsh(pinned, await hosts.secretOf(pinned));
    client.end();
  });

  it('a changed host key refuses to connect with HOST_KEY_CHANGED naming expected and actual', async () => {
    const host = await hosts.get('pin-me');
    const oldKey = sshd.hostKeyFingerprint;
    const newKey = await sshd.rotateHostKey();
    expect(newKey).not.toBe(oldKey);
    const error = await connectSsh(host, await hosts.secretOf(host)).catch((e: unknown) => e);
    expect(OpsgateError.isInstance(error) && error.code).toBe('HOST_KEY_CHANGED');
    expect((error as Error).message).toContain(`expected ${oldKey}, got ${newKey}`);
    expect((error as Error).message).toMatch(/remove and re-add the host/);
    // The pin is never replaced silently.
    await expect(hosts.confirmHostKey('pin-me', newKey)).rejects.toMatchObject({ code: 'HOST_KEY_CHANGED' });
    expect((await hosts.get('pin-me')).hostKeySha256).toBe(oldKey);
  });

  it('removing a host deletes its secret', async () => {
    await hosts.remove('pin-me');
    expect(secrets.values.has('troubleshoot/host/pin-me')).toBe(false);
    await expect(hosts.get('pin-me')).rejects.toMatchObject({ code: 'HOST_NOT_FOUND' });
  });
});
