import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { FILESYSTEM_SERVER } from './gateway-harness.ts';

async function opsgate(args: string[], env: Record<string, string>) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk) => {
    out += chunk;
  });
  stderr.on('data', (chunk) => {
    err += chunk;
  });
  const code = await main(args, { stdout, stderr, stdin: new PassThrough(), env });
  return { code, stdout: out, stderr: err };
}

describe('opsgate gateway --check and --accept-tool', () => {
  let dir: string;
  let env: Record<string, string>;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'opsgate-gateway-check-'));
    writeFileSync(
      join(dir, 'gateway.yaml'),
      `upstreams:
  - name: files
    trusted: true
    command: ${process.execPath}
    args: [${JSON.stringify(FILESYSTEM_SERVER)}, ${JSON.stringify(dir)}]
    tools:
      edit_flie: { policy: deny }
      create_directory: { policy: ask, risk: low, requesterMayApprove: true }
`,
    );
    env = { OPSGATE_DATA_DIR: join(dir, 'data'), PATH: process.env.PATH ?? '', OPSGATE_LOG_LEVEL: 'silent' };
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints how each tool is treated and exits 1 on a pin that names no tool (F6)', async () => {
    const result = await opsgate(['gateway', '--config', join(dir, 'gateway.yaml'), '--check'], env);
    expect(result.stdout).toMatch(/^files: up \(stdio\), \d+ tools, annotations trusted/);
    expect(result.stdout).toContain('files__read_text_file: runs at once — the trusted upstream marks it read-only');
    expect(result.stdout).toContain('files__write_file: asks (risk high; someone other than the requester approves)');
    expect(result.stdout).toContain('files__create_directory: asks (risk low; the requester may approve below high risk)');
    expect(result.stdout).toMatch(/PIN "edit_flie" names no tool of files \(it lists: .*edit_file/);
    expect(result.stdout).toContain('1 problem(s)');
    expect(result.code).toBe(1);
  }, 30_000);

  it('--accept-tool with no change waiting says how to list the changes', async () => {
    const result = await opsgate(['gateway', '--config', join(dir, 'gateway.yaml'), '--accept-tool', 'files/write_file'], env);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/GATEWAY_TOOL_CHANGE_NOT_FOUND|No changed definition of write_file/);
    const bad = await opsgate(['gateway', '--config', join(dir, 'gateway.yaml'), '--accept-tool', 'write_file'], env);
    expect(bad.code).toBe(2);
  }, 30_000);
});
