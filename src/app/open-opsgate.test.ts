import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openOpsgate } from './open-opsgate.ts';

describe('openOpsgate configuration', () => {
  it.each(['abc', '0', '-3', '1001', '2.5'])(
    'refuses OPSGATE_STEP_LIMIT=%s with a typed error before touching the data dir',
    async (value) => {
      const dataDir = join(mkdtempSync(join(tmpdir(), 'opsgate-config-')), 'data');
      try {
        await expect(openOpsgate({ env: { OPSGATE_STEP_LIMIT: value }, dataDir, agentNames: [] })).rejects.toMatchObject({
          code: 'CONFIG_INVALID',
        });
        expect(existsSync(dataDir)).toBe(false);
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  );

  it('refuses an OPSGATE_MODEL naming no known provider', async () => {
    await expect(openOpsgate({ env: { OPSGATE_MODEL: 'skynet:9000' }, agentNames: [] })).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
  });

  it('opens with the offline interpreter when no key is set', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'opsgate-config-'));
    const opsgate = await openOpsgate({ env: { OPSGATE_STEP_LIMIT: '7' }, dataDir, agentNames: [] });
    try {
      expect(opsgate.modelDescription).toMatch(/offline interpreter/);
    } finally {
      await opsgate.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses a broken OPSGATE_POLICY_DIR at start-up with a typed error naming the file, before touching the data dir', async () => {
    const root = mkdtempSync(join(tmpdir(), 'opsgate-config-'));
    const policyDir = join(root, 'policies');
    const dataDir = join(root, 'data');
    try {
      await expect(openOpsgate({ env: { OPSGATE_POLICY_DIR: policyDir }, dataDir, agentNames: [] })).rejects.toMatchObject({
        code: 'POLICY_DIR_NOT_FOUND',
      });
      mkdirSync(policyDir);
      writeFileSync(
        join(policyDir, 'broken.cedar'),
        '@id("oops") permit (principal, action == Opsgate::Action::"run", resource) when { context.nope };',
      );
      await expect(openOpsgate({ env: { OPSGATE_POLICY_DIR: policyDir }, dataDir, agentNames: [] })).rejects.toMatchObject({
        code: 'POLICY_INVALID',
        message: expect.stringContaining('policy "oops"'),
      });
      expect(existsSync(dataDir)).toBe(false);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
