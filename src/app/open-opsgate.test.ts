import { existsSync, mkdtempSync, rmSync } from 'node:fs';
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
});
