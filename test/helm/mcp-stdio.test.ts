import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HelmMcpClient } from '../../src/agents/helm/mcp/mcp-client.ts';

const serveEntry = new URL('./serve-stdio.ts', import.meta.url).pathname;
const cliVerb = new URL('../../src/cli/commands/mcp-server.ts', import.meta.url).pathname;
const cliIndex = new URL('../../src/cli/commands/index.ts', import.meta.url).pathname;
const opsgateMain = new URL('../../src/cli/main.ts', import.meta.url).pathname;

describe('Helm MCP server over stdio (a real child process)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'opsgate-helm-stdio-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('lists releases and plans an install through the stdio transport', async () => {
    // The shipped CLI verb when it is registered (`opsgate mcp-server helm`), else a two-line entry.
    const useCli = existsSync(cliVerb) && readFileSync(cliIndex, 'utf8').includes('mcp-server');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: useCli ? [opsgateMain, 'mcp-server', 'helm', '--backend', 'simulator'] : [serveEntry, '--backend', 'simulator'],
      cwd: process.cwd(),
      env: { ...(process.env as Record<string, string>), OPSGATE_DATA_DIR: dir, OPSGATE_DATABASE_URL: '' },
      stderr: 'pipe',
    });
    const client = await HelmMcpClient.connect(transport);
    try {
      expect(await client.call('helm_list_releases', {})).toMatchObject({ backend: 'simulated-cluster', releases: [] });
      const plan = await client.call('helm_get_installation_plan', {
        operation: 'install',
        release: 'web',
        namespace: 'default',
        chart: 'webapp',
        version: '1.0.0',
      });
      expect(plan).toMatchObject({
        plan: { operation: 'install', resources: { create: ['Deployment/web-webapp', 'Service/web-webapp'] } },
      });
    } finally {
      await client.close();
    }
  }, 30_000);
});
