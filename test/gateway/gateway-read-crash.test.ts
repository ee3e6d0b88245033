import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, describe, expect, it } from 'vitest';
import { AuditLog } from '../../src/core/audit/index.ts';
import { UserRepository } from '../../src/core/identity/users.ts';
import { openStore } from '../../src/core/store/index.ts';
import { freePort } from '../web/web-harness.ts';
import { FILESYSTEM_SERVER } from './gateway-harness.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const OPSGATE = join(ROOT, 'bin', 'opsgate');
const READS = 48;
const AT_ONCE = 8;
const run = promisify(execFile);

/**
 * docs/security.md: a read's audit event is durable before its answer leaves (group commit shares
 * the transaction, it does not defer it). So a gateway killed with SIGKILL right after answering a
 * burst of concurrent fast reads has every answered read in its journal, and `opsgate audit verify`
 * seals and verifies them all.
 */
describe('fast reads survive a kill -9 of the gateway right after their answers', () => {
  const dir = mkdtempSync(join(tmpdir(), 'opsgate-read-crash-'));
  let gateway: ChildProcess | undefined;
  afterAll(() => {
    if (gateway?.exitCode === null && gateway.signalCode === null) gateway.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('every answered read is in the chain after the crash, and the chain verifies', async () => {
    const files = join(dir, 'files');
    mkdirSync(files);
    const target = join(files, 'read-me.txt');
    writeFileSync(target, 'read through the gateway\n');
    const store = await openStore({ dataDir: dir, databaseUrl: '' });
    const users = new UserRepository(store);
    await users.create({ username: 'john_doe', roles: ['user'] });
    const { token } = await users.createToken('john_doe', 'crash');
    await store.close();
    const config = join(dir, 'gateway.yaml');
    writeFileSync(
      config,
      `upstreams:\n  - name: files\n    trusted: true\n    command: ${process.execPath}\n    args: [${JSON.stringify(FILESYSTEM_SERVER)}, ${JSON.stringify(files)}]\n`,
    );
    const env: Record<string, string> = { OPSGATE_DATA_DIR: dir };
    for (const [name, value] of Object.entries(process.env)) if (value !== undefined && !name.startsWith('OPSGATE_')) env[name] = value;
    const port = await freePort();
    gateway = spawn(OPSGATE, ['gateway', '--config', config, '--port', String(port)], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let output = '';
    await new Promise<void>((done, fail) => {
      gateway!.stderr!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('files: up')) done();
      });
      gateway!.once('exit', (code) => fail(new Error(`opsgate gateway exited ${code}: ${output}`)));
    });

    const clients = await Promise.all(
      Array.from({ length: AT_ONCE }, async () => {
        const client = new Client({ name: 'crash-test', version: '1' });
        await client.connect(
          new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
            requestInit: { headers: { authorization: `Bearer ${token}` } },
          }),
        );
        return client;
      }),
    );
    let answered = 0;
    let next = 0;
    await Promise.all(
      clients.map(async (client) => {
        while (next < READS) {
          next++;
          const result = await client.callTool({ name: 'files__read_text_file', arguments: { path: target } });
          expect(result.isError).toBeFalsy();
          answered++;
        }
      }),
    );
    // No graceful shutdown: whatever was not durable when the last answer left is lost now.
    const killed = new Promise((exited) => gateway!.once('exit', exited));
    gateway.kill('SIGKILL');
    await killed;
    expect(answered).toBe(READS);

    const { stdout } = await run(OPSGATE, ['audit', 'verify'], { env });
    expect(stdout).toMatch(/^audit chain OK/);
    const reopened = await openStore({ dataDir: dir, databaseUrl: '' });
    try {
      const reads = await new AuditLog(reopened).list({ type: 'tool_read', limit: 1000 });
      expect(reads.filter((event) => event.payload.outcome === 'executed')).toHaveLength(READS);
      expect(await new AuditLog(reopened).list({ type: 'upstream_called', limit: 1000 })).toHaveLength(READS);
    } finally {
      await reopened.close();
    }
  }, 120_000);
});
