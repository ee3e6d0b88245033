import { request } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpHttpHost, startMcpHttpHost } from './http-host.ts';

const TOKEN = 'printed-at-start';

function initialize(url: string, headers: Record<string, string>): Promise<number> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
  });
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.once('error', reject);
    req.end(body);
  });
}

// Review 2026-11-26 L4-new: the MCP HTTP hosts (mcp --http, mcp-server --http, the gateway) checked Host but not Origin.
describe('MCP over HTTP: Host and Origin', () => {
  let host: McpHttpHost;
  beforeAll(async () => {
    host = await startMcpHttpHost<string>(
      {
        authenticate: async (token) => (token === TOKEN ? 'holder' : undefined),
        principalKey: (principal) => principal,
        build: async () => new McpServer({ name: 'probe', version: '1' }),
      },
      { port: 0 },
    );
  });
  afterAll(() => host.close());

  it("a page from another origin is refused even with a valid token; a client sending no Origin, or the host's own, is served", async () => {
    const port = new URL(host.url).port;
    const authorization = `Bearer ${TOKEN}`;
    expect(await initialize(host.url, { authorization, origin: 'http://rebind.evil.example' })).toBe(403);
    expect(await initialize(host.url, { authorization, origin: 'null' })).toBe(403);
    expect(await initialize(host.url, { authorization, origin: `http://127.0.0.1:${port}` })).toBe(200);
    expect(await initialize(host.url, { authorization })).toBe(200);
    expect(await initialize(host.url, { authorization, host: `rebind.evil.example:${port}` })).toBe(403);
  });
});
