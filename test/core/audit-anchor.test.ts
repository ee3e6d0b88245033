// Review M2-new on PostgreSQL: two replicas share one database; each keeps a checkpoint file on its
// own disk, and both send every checkpoint they sign to one external anchor (here a file behind a
// write and a read command, standing in for a log host reached over ssh). A DB-only attacker
// deletes the tail together with the newest checkpoint rows and the replicas' files. `audit verify`
// from either replica (and from another host, with a copy of the anchor) must find it.
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { auditCommand } from '../../src/cli/commands/audit.ts';
import { AuditLog } from '../../src/core/audit/index.ts';
import { openStore, type Store } from '../../src/core/store/index.ts';
import { postgresTestStore, testDatabaseUrl } from '../../src/testing/index.ts';

interface Replica {
  readonly store: Store;
  readonly dataDir: string;
  readonly env: Record<string, string>;
}

/** Two replicas on one fresh database, each with its own data directory, sharing one external anchor. */
interface Rig {
  readonly root: string;
  readonly anchorFile: string;
  openReplica(name: string, env: Record<string, string>): Promise<Replica>;
  readonly a: Replica;
  readonly b: Replica;
}

// Each test builds its own rig inside the test (no shared beforeAll, no order between tests): the
// mutation run times each test alone and counts what a beforeAll runs as covered by no test.
async function withRig(test: (rig: Rig) => Promise<void>): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'opsgate-anchor-'));
  const anchorFile = join(root, 'loghost', 'checkpoints.jsonl');
  const auditKey = randomBytes(32).toString('base64');
  const anchorEnv = {
    OPSGATE_AUDIT_ANCHOR_COMMAND: `mkdir -p '${join(root, 'loghost')}' && cat >> '${anchorFile}'`,
    OPSGATE_AUDIT_ANCHOR_READ_COMMAND: `cat '${anchorFile}'`,
  };
  const database = await postgresTestStore.create();
  const stores: Store[] = [];
  const openReplica = async (name: string, env: Record<string, string>): Promise<Replica> => {
    const dataDir = join(root, name);
    const fullEnv: Record<string, string> = {
      OPSGATE_DATA_DIR: dataDir,
      OPSGATE_DATABASE_URL: database.url!,
      OPSGATE_AUDIT_KEY: auditKey,
      ...env,
    };
    const store = await openStore({
      dataDir,
      databaseUrl: database.url!,
      auditKey,
      auditCheckpointFile: '',
      auditAnchorCommand: fullEnv.OPSGATE_AUDIT_ANCHOR_COMMAND ?? '',
      auditAnchorReadCommand: fullEnv.OPSGATE_AUDIT_ANCHOR_READ_COMMAND ?? '',
      poolSize: 2,
    });
    stores.push(store);
    return { store, dataDir, env: fullEnv };
  };
  try {
    const a = await openReplica('replica-a', anchorEnv);
    const b = await openReplica('replica-b', anchorEnv);
    await sealOn(a, 1, 30);
    await sealOn(b, 31, 30);
    await test({ root, anchorFile, openReplica, a, b });
  } finally {
    for (const store of stores) await store.close();
    await database.dispose();
    rmSync(root, { recursive: true, force: true });
  }
}

/** `count` events journaled and sealed by this replica's log, a checkpoint every 10 events. */
async function sealOn(replica: Replica, from: number, count: number): Promise<void> {
  const audit = new AuditLog(replica.store, undefined, { checkpointEveryEvents: 10 });
  for (let i = from; i < from + count; i += 1) {
    await audit.append({ sessionId: `s${i % 5}`, type: 'tool_approved', actor: 'user:alice', payload: { callId: `c${i}` } });
    if (i % 10 === 0) await audit.seal();
  }
  await audit.close();
}

async function cliVerify(env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk) => (out += chunk));
  stderr.on('data', (chunk) => (err += chunk));
  const code = await auditCommand.run(['verify', ...args], { stdout, stderr, stdin: new PassThrough(), env });
  return { code, stdout: out, stderr: err };
}

describe.skipIf(!testDatabaseUrl)('audit checkpoints on PostgreSQL: the external anchor (review M2-new)', () => {
  it('every checkpoint reaches the one anchor, whichever replica signed it; verify from either replica reads it', () =>
    withRig(async ({ anchorFile, a, b }) => {
      const stored = await a.store.db.selectFrom('audit_checkpoints').select('seq').orderBy('seq').execute();
      const anchored = readFileSync(anchorFile, 'utf8')
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { seq: number }).seq);
      expect(anchored).toEqual(stored.map((row) => Number(row.seq)));
      expect(anchored.at(-1)).toBe(60);
      // Each replica's own file holds only what that replica signed: neither is an anchor for the other.
      for (const replica of [a, b]) {
        const local = readFileSync(join(replica.dataDir, 'audit-checkpoints.jsonl'), 'utf8').trim().split('\n');
        expect(local.length).toBeLessThan(anchored.length);
      }
      const cli = await cliVerify(b.env);
      expect(cli.stdout).toMatch(/^audit chain OK: 60 events verified .*the external anchor \(OPSGATE_AUDIT_ANCHOR_READ_COMMAND\)/);
      expect(cli.code).toBe(0);
    }));

  it('tail deleted with the newest checkpoint rows and both replicas files: BROKEN from either replica and from another host', () =>
    withRig(async ({ root, anchorFile, a, b }) => {
      const copy = join(root, 'off-host-copy.jsonl');
      copyFileSync(anchorFile, copy);
      await a.store.db.deleteFrom('audit_checkpoints').where('seq', '>', 20).execute();
      await a.store.db.deleteFrom('audit_events').where('seq', '>', 20).execute();
      for (const replica of [a, b]) rmSync(join(replica.dataDir, 'audit-checkpoints.jsonl'), { force: true });

      // Without the anchor the shorter chain is consistent: this is the gap the anchor closes.
      const blind = await cliVerify({ ...b.env, OPSGATE_AUDIT_ANCHOR_READ_COMMAND: '' });
      expect(blind.code).toBe(0);
      expect(blind.stderr).toContain('no external checkpoint anchor was read');

      for (const replica of [a, b]) {
        const cli = await cliVerify(replica.env);
        expect(cli.code).toBe(1);
        expect(cli.stdout).toContain('covers 60 events: the last 40 were deleted');
        expect(cli.stdout).toContain('the external anchor (OPSGATE_AUDIT_ANCHOR_READ_COMMAND)');
      }
      const offHost = await cliVerify(
        { ...b.env, OPSGATE_AUDIT_ANCHOR_READ_COMMAND: '', OPSGATE_DATA_DIR: join(root, 'verifier') },
        '--checkpoints',
        copy,
      );
      expect(offHost.code).toBe(1);
      expect(offHost.stdout).toContain(`(in ${copy}) covers 60 events: the last 40 were deleted`);
    }));

  it('an emptied anchor, an anchor that cannot be read and one that refuses a checkpoint are failures that say what to do', () =>
    withRig(async ({ root, anchorFile, openReplica, b }) => {
      writeFileSync(anchorFile, '');
      const emptied = await cliVerify(b.env);
      expect(emptied.code).toBe(1);
      expect(emptied.stdout).toContain("holds none of this store's 6 checkpoint(s): the anchor was emptied or replaced");

      const unreadable = await cliVerify({ ...b.env, OPSGATE_AUDIT_ANCHOR_READ_COMMAND: `cat '${join(root, 'nowhere')}'` });
      expect(unreadable.code).toBe(1);
      expect(unreadable.stdout).toMatch(
        /could not be read \(exit 1: cat: .*nowhere.*\): fix the command, or verify against a copy with --checkpoints FILE/,
      );

      const refusing = await openReplica('replica-c', { OPSGATE_AUDIT_ANCHOR_COMMAND: 'echo anchor host down >&2; exit 3' });
      const audit = new AuditLog(refusing.store);
      await audit.append({ type: 'tool_approved', actor: 'user:alice', payload: { callId: 'after' } });
      await expect(audit.checkpoint()).rejects.toMatchObject({
        code: 'AUDIT_ANCHOR_UNREACHABLE',
        message: expect.stringContaining('exit 3: anchor host down'),
      });
      await audit.close();
    }));
});
