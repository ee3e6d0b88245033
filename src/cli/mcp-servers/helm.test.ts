import { describe, expect, it } from 'vitest';
import { UsageError } from '../command.ts';
import { createMcpServer, parseHelmServerArgs } from './helm.ts';

describe('opsgate mcp-server helm: its command line', () => {
  it('parses its own arguments and throws UsageError on bad ones', async () => {
    expect(parseHelmServerArgs([])).toMatchObject({ backend: 'simulator' });
    expect(parseHelmServerArgs(['--backend', 'cli'])).toMatchObject({ backend: 'cli' });
    expect(() => parseHelmServerArgs(['--backend', 'k8s'])).toThrow(UsageError);
    expect(() => parseHelmServerArgs(['--bogus'])).toThrow(UsageError);
    await expect(createMcpServer({ args: ['--charts', '/nonexistent'] })).rejects.toThrow(UsageError);
  });
});
