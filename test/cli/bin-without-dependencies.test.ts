import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

/** A copy of the parts of the repository bin/opsgate runs (no node_modules, no .tools). */
function checkout(dir: string): void {
  for (const part of ['bin', 'scripts', 'src', 'package.json']) cpSync(join(root, part), join(dir, part), { recursive: true });
}

function opsgate(dir: string, args: string[], path: string) {
  const result = spawnSync('bash', [join(dir, 'bin', 'opsgate'), ...args], {
    cwd: dir,
    encoding: 'utf8',
    env: { PATH: path, HOME: dir },
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** What a person sees: one line that names both ways in, no trace, no Node error code. */
function expectOneLineToRunNpm(result: { code: number | null; stderr: string; stdout: string }): void {
  expect(result.code).not.toBe(0);
  expect(result.stdout).toBe('');
  expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(result.stderr).toMatch(/^opsgate: .*"npm start" or "npm install"/);
  expect(result.stderr).not.toMatch(/ERR_MODULE_NOT_FOUND|\n\s+at /);
}

describe('bin/opsgate on a checkout without its dependencies', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'opsgate-bare-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a fresh clone (no node_modules) says to run npm start or npm install, even with only the system Node on PATH', () => {
    const clone = join(dir, 'clone');
    checkout(clone);
    // The machine's own directories only: its node may be older than 24 or missing; neither is reached.
    expectOneLineToRunNpm(opsgate(clone, ['--help'], '/usr/bin:/bin'));
    expectOneLineToRunNpm(opsgate(clone, ['serve'], '/usr/bin:/bin'));
  });

  it('a node_modules without the packages (an install that stopped) says the same and names the missing package', () => {
    const partial = join(dir, 'partial');
    checkout(partial);
    mkdirSync(join(partial, 'node_modules'));
    writeFileSync(join(partial, 'node_modules', '.package-lock.json'), '{}');
    const result = opsgate(partial, ['--help'], `${dirname(process.execPath)}:/usr/bin:/bin`);
    expectOneLineToRunNpm(result);
    expect(result.stderr).toMatch(/package "[^"]+" is missing/);
  });
});
