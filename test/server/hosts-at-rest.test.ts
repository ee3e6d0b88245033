import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostRepository, troubleshootMigrations } from '../../src/agents/troubleshoot/index.ts';
import { createHostDirectory } from '../../src/app/host-directory.ts';
import { createStoreSecretStore } from '../../src/core/agent/index.ts';
import { AuditLog } from '../../src/core/audit/index.ts';
import { UserRepository } from '../../src/core/identity/users.ts';
import { createRuntime, type Runtime } from '../../src/core/runtime/index.ts';
import { openStore, type Store } from '../../src/core/store/index.ts';
import { createServer } from '../../src/server/index.ts';
import { login } from '../../src/server/testing/server-fixture.ts';
import { createLedgerAgent, createLedgerModel } from '../../src/testing/index.ts';
import { postgresTestStore, testDatabaseUrl } from '../../src/testing/test-stores.ts';
import { sshdAvailable, startTestSshd, type TestSshd } from '../support/sshd.ts';

const mode = (path: string) => statSync(path).mode & 0o777;

describe('M6: the store and host secrets at rest', () => {
  let root: string;
  let dataDir: string;
  let store: Store;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'opsgate-at-rest-'));
    dataDir = join(root, 'data');
    // A data dir an older version created world-readable is tightened.
    mkdirSync(dataDir, { mode: 0o755 });
    chmodSync(dataDir, 0o755);
    store = await openStore({ dataDir, databaseUrl: '', migrations: troubleshootMigrations });
  });
  afterAll(async () => {
    await store.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('the data dir is 0700 and opsgate.db, -wal and -shm are 0600', async () => {
    await new UserRepository(store).create({ username: 'someone' });
    await store.flush();
    expect(mode(dataDir)).toBe(0o700);
    for (const file of ['opsgate.db', 'opsgate.db-wal', 'opsgate.db-shm']) expect(mode(join(dataDir, file))).toBe(0o600);
  });

  it('secrets are AES-256-GCM ciphertext under a key outside the database; old plaintext rows still read and get encrypted', async () => {
    const secrets = createStoreSecretStore(store, undefined, { env: {} });
    await secrets.set('troubleshoot/host/web1', '{"password":"SENTINEL-HOSTPW-9f8e7d"}');
    const row = await store.db.selectFrom('secrets').select('value').where('name', '=', 'troubleshoot/host/web1').executeTakeFirstOrThrow();
    expect(row.value).toMatch(/^enc:v1:/);
    expect(row.value).not.toContain('SENTINEL');
    expect(await secrets.get('troubleshoot/host/web1')).toBe('{"password":"SENTINEL-HOSTPW-9f8e7d"}');
    expect(mode(join(dataDir, 'secrets.key'))).toBe(0o600);

    await store.db
      .insertInto('secrets')
      .values({ name: 'legacy', value: '{"password":"OLD-PLAIN"}', created_at: new Date().toISOString() })
      .execute();
    expect(await secrets.get('legacy')).toBe('{"password":"OLD-PLAIN"}');
    const legacy = await store.db.selectFrom('secrets').select('value').where('name', '=', 'legacy').executeTakeFirstOrThrow();
    expect(legacy.value).toMatch(/^enc:v1:/);
    expect(await secrets.get('legacy')).toBe('{"password":"OLD-PLAIN"}');

    // A ciphertext moved to another row, or read with another key, does not decrypt.
    await store.db.updateTable('secrets').set({ value: row.value }).where('name', '=', 'legacy').execute();
    await expect(secrets.get('legacy')).rejects.toMatchObject({ code: 'SECRET_UNREADABLE' });
    const otherKey = createStoreSecretStore(store, undefined, { env: { OPSGATE_SECRETS_KEY: randomBytes(32).toString('base64') } });
    await expect(otherKey.get('troubleshoot/host/web1')).rejects.toMatchObject({
      code: 'SECRET_UNREADABLE',
      message: expect.stringContaining('OPSGATE_SECRETS_KEY'),
    });
    await expect(
      createStoreSecretStore(store, undefined, { env: { OPSGATE_SECRETS_KEY: 'c2hvcnQ=' } }).set('x', 'y'),
    ).rejects.toMatchObject({
      code: 'SECRETS_KEY_INVALID',
    });
  });

  it.skipIf(!testDatabaseUrl)('on PostgreSQL the key file is made in a data dir nobody created yet (a first start), 0700', async () => {
    const postgres = await postgresTestStore.create();
    const freshDataDir = join(root, 'first-start', 'data');
    try {
      await createStoreSecretStore(postgres.store, undefined, { env: { OPSGATE_DATA_DIR: freshDataDir } }).set('x', 'y');
      expect(mode(freshDataDir)).toBe(0o700);
      expect(mode(join(freshDataDir, 'secrets.key'))).toBe(0o600);
    } finally {
      await postgres.dispose();
    }
  });
});

describe.skipIf(!sshdAvailable())(
  'H1 + M6: hosts added, trusted and removed over REST are on the record; the key never is (real sshd)',
  () => {
    let root: string;
    let store: Store;
    let runtime: Runtime;
    let app: FastifyInstance;
    let sshd: TestSshd;
    beforeAll(async () => {
      sshd = await startTestSshd();
      root = mkdtempSync(join(tmpdir(), 'opsgate-hosts-'));
      store = await openStore({ dataDir: join(root, 'data'), databaseUrl: '', migrations: troubleshootMigrations });
      runtime = await createRuntime({ store, agents: [createLedgerAgent({ reads: 0, transfers: [] })], model: () => createLedgerModel() });
      await new UserRepository(store).create({ username: 'admin', password: 'admin-password-1', roles: ['admin'] });
      app = await createServer({
        runtime,
        store,
        cookieKey: randomBytes(32),
        hosts: createHostDirectory(store, createStoreSecretStore(store)),
      });
    });
    afterAll(async () => {
      await app.close();
      await runtime.close();
      await store.close();
      await sshd.stop();
      rmSync(root, { recursive: true, force: true });
    });

    it('audits host_added, host_trusted and host_removed as the admin, and stores the private key only encrypted', async () => {
      const admin = await login(app, 'admin', 'admin-password-1');
      const headers = { cookie: admin.cookie, 'x-csrf-token': admin.csrfToken };
      const added = await app.inject({
        method: 'POST',
        url: '/api/hosts',
        headers,
        payload: {
          name: 'web1',
          address: sshd.host,
          port: sshd.port,
          username: sshd.username,
          auth: { kind: 'key', privateKey: sshd.privateKey },
        },
      });
      expect(added.statusCode).toBe(201);
      await store.flush();
      const onDisk = ['opsgate.db', 'opsgate.db-wal']
        .map((file) => join(root, 'data', file))
        .map((path) => readFileSync(path).toString('latin1'))
        .join('');
      expect(onDisk).not.toContain('PRIVATE KEY');
      expect(await new HostRepository(store, createStoreSecretStore(store)).get('web1')).toMatchObject({ name: 'web1' });

      const trusted = await app.inject({
        method: 'POST',
        url: '/api/hosts/web1/trust',
        headers,
        payload: { fingerprint: sshd.hostKeyFingerprint },
      });
      expect(trusted.statusCode).toBe(200);
      expect((await app.inject({ method: 'DELETE', url: '/api/hosts/web1', headers })).statusCode).toBe(200);

      const events = (await new AuditLog(store).list()).filter((e) => e.type.startsWith('host_'));
      expect(events.map((e) => [e.type, e.actor])).toEqual([
        ['host_added', 'user:admin'],
        ['host_trusted', 'user:admin'],
        ['host_removed', 'user:admin'],
      ]);
      expect(events[0]!.payload).toMatchObject({ name: 'web1', address: sshd.host, port: sshd.port, authKind: 'key', via: 'web' });
      expect(events[1]!.payload).toMatchObject({ name: 'web1', hostKeySha256: sshd.hostKeyFingerprint });
      expect(JSON.stringify(events)).not.toContain('PRIVATE KEY');
    });
  },
);
