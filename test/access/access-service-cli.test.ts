import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';

const bin = join(import.meta.dirname, '../../bin/opsgate');

function io(env: Record<string, string | undefined>) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c) => {
    out += c;
  });
  stderr.on('data', (c) => {
    err += c;
  });
  return { io: { stdout, stderr, stdin: new PassThrough(), env }, output: () => ({ out, err }) };
}

describe('opsgate access-service', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'opsgate-access-cli-'));
  let child: ChildProcess | undefined;
  afterAll(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses bad arguments with exit 2 and a one-line message', async () => {
    const noKey = io({ OPSGATE_DATA_DIR: dataDir });
    expect(await main(['access-service', '--port', '0'], noKey.io)).toBe(2);
    expect(noKey.output().err).toBe(
      'opsgate access-service: set ACCESS_ADMIN_KEY (at least 8 characters): admin calls must send it as X-Admin-Key\n',
    );
    const badPort = io({ OPSGATE_DATA_DIR: dataDir, ACCESS_ADMIN_KEY: 'cli-test-admin-key' });
    expect(await main(['access-service', '--port', '70000'], badPort.io)).toBe(2);
    expect(badPort.output().err).toContain('--port must be between 0 and 65535');
  });

  it('serves the catalog with demo data on a real port until SIGTERM', async () => {
    child = spawn(bin, ['access-service', '--port', '0'], {
      env: { ...process.env, OPSGATE_DATA_DIR: dataDir, ACCESS_ADMIN_KEY: 'cli-test-admin-key', OPSGATE_DATABASE_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const url = await new Promise<string>((resolve, reject) => {
      child!.stdout!.on('data', (chunk) => {
        out += chunk;
        const match = /listening on (http:\/\/\S+)/.exec(out);
        if (match) resolve(match[1]!);
      });
      child!.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
    });
    expect(out).toContain('READ_DOCUMENTS');
    expect(out).toMatch(/1\s+john_doe/);
    expect(out).not.toContain('cli-test-admin-key');
    const list = await fetch(`${url}/admin/accesses?limit=2`, { headers: { 'x-admin-key': 'cli-test-admin-key' } });
    expect(list.status).toBe(200);
    expect(await list.json()).toMatchObject({ total: 12, limit: 2, offset: 0 });
    const grant = await fetch(`${url}/users/1/accesses`, {
      method: 'POST',
      headers: { 'x-username': 'john_doe', 'content-type': 'application/json' },
      body: JSON.stringify({ access_name: 'READ_DOCUMENTS' }),
    });
    expect(grant.status).toBe(201);
    const exited = new Promise<number | null>((resolve) => child!.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
