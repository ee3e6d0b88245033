import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TICKET_META } from '../../src/gateway/gateway-mcp-server.ts';
import { auditEvents, type GatewayRig, SSO_ISSUER, startGatewayRig, textOf, waitForPending } from './gateway-harness.ts';

describe('the gateway in front of the real filesystem MCP server (Streamable HTTP)', () => {
  let rig: GatewayRig;
  beforeAll(async () => {
    rig = await startGatewayRig();
    writeFileSync(join(rig.files, 'notes.txt'), 'hello from the upstream\n');
  }, 30_000);
  afterAll(async () => rig?.close());

  it('lists the upstream tools namespaced, read-only ones marked so', async () => {
    const client = await rig.connect('john_doe');
    const tools = (await client.listTools()).tools;
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('files__read_text_file')?.annotations?.readOnlyHint).toBe(true);
    expect(byName.get('files__write_file')?.annotations?.readOnlyHint).toBe(false);
    expect(byName.get('files__write_file')?.description).toMatch(/approves it on the opsgate server/);
    expect(byName.has('gateway_collect')).toBe(true);
  });

  it('a read runs at once and is audited with the upstream', async () => {
    const client = await rig.connect('john_doe');
    const read = await client.callTool({ name: 'files__read_text_file', arguments: { path: join(rig.files, 'notes.txt') } });
    expect(read.isError).toBeFalsy();
    expect(textOf(read)).toBe('hello from the upstream\n');
    const events = await auditEvents(rig, 'upstream_called');
    expect(events.map((e) => e.payload)).toContainEqual(
      expect.objectContaining({
        callId: expect.any(String),
        upstream: 'files',
        transport: 'stdio',
        tool: 'read_text_file',
        resultHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      }),
    );
  });

  it('invalid arguments are refused before anything runs', async () => {
    const client = await rig.connect('john_doe');
    const bad = await client.callTool({ name: 'files__write_file', arguments: { path: 42 } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/INVALID_TOOL_INPUT|invalid/i);
  });

  it('write_file waits; alice approves on the server; the file is written exactly once', async () => {
    const client = await rig.connect('john_doe');
    const target = join(rig.files, 'approved.txt');
    const call = client.callTool({ name: 'files__write_file', arguments: { path: target, content: 'approved content' } });
    const { pending, actor } = await waitForPending(rig, 'alice', 'write_file');
    expect(pending.interrupt.args).toEqual({ path: target, content: 'approved content' });
    expect(pending.interrupt.risk).toBe('high');
    expect(pending.mayApprove).toBe(true);
    expect(existsSync(target)).toBe(false);
    await rig.web.runtime.decide(pending.sessionId, { type: 'approve', callId: pending.interrupt.callId }, { ...actor, channel: 'rest' });
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(readFileSync(target, 'utf8')).toBe('approved content');
    const executed = await auditEvents(rig, 'tool_executed');
    expect(executed.filter((e) => e.payload.callId === pending.interrupt.callId)).toHaveLength(1);
    const approvals = await auditEvents(rig, 'tool_approved');
    expect(approvals.filter((e) => e.payload.callId === pending.interrupt.callId)).toHaveLength(1);
  }, 30_000);

  it('a rejection leaves the file untouched and the client gets the reason', async () => {
    const client = await rig.connect('john_doe');
    const target = join(rig.files, 'rejected.txt');
    const call = client.callTool({ name: 'files__write_file', arguments: { path: target, content: 'never' } });
    const { pending, actor } = await waitForPending(rig, 'alice', 'write_file');
    await rig.web.runtime.decide(pending.sessionId, { type: 'reject', callId: pending.interrupt.callId, reason: 'not on a Friday' }, actor);
    const result = await call;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/Rejected by alice: not on a Friday/);
    expect(existsSync(target)).toBe(false);
  }, 30_000);
});

/** One raw HTTP request, as curl or a rebinding page would send it. */
function raw(url: string, init: { method?: string; headers?: Record<string, string>; body?: string }) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((done, fail) => {
    const req = request(url, { method: init.method ?? 'GET', headers: init.headers ?? {} }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      res.on('end', () => done({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.once('error', fail);
    req.end(init.body);
  });
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
});
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('who may talk to the gateway, a call past the wait, and the limits', () => {
  let rig: GatewayRig;
  beforeAll(async () => {
    rig = await startGatewayRig(
      '',
      'approvalWaitSeconds: 1\nlimits: { perUserPerMinute: 100, perToolPerMinute: 3, maxResultBytes: 100000 }',
    );
    writeFileSync(join(rig.files, 'seed.txt'), 'seed');
  }, 30_000);
  afterAll(async () => rig?.close());

  it('past approvalWaitSeconds the client gets "waiting for approval" with a ticket; gateway_collect returns the outcome once decided', async () => {
    const client = await rig.connect('john_doe');
    const target = join(rig.files, 'later.txt');
    const waiting = await client.callTool({ name: 'files__write_file', arguments: { path: target, content: 'collected later' } });
    expect(waiting.isError).toBe(true);
    expect(textOf(waiting)).toMatch(/Waiting for approval on the opsgate server; nothing has run yet/);
    const ticket = waiting._meta?.[TICKET_META] as string;
    expect(existsSync(target)).toBe(false);
    const { pending, actor } = await waitForPending(rig, 'alice', 'write_file');
    await rig.web.runtime.decide(pending.sessionId, { type: 'approve', callId: pending.interrupt.callId }, actor);
    const collected = await client.callTool({ name: 'gateway_collect', arguments: { ticket } });
    expect(collected.isError).toBeFalsy();
    expect(readFileSync(target, 'utf8')).toBe('collected later');
    const stranger = await rig.connect('jane_smith');
    const refused = await stranger.callTool({ name: 'gateway_collect', arguments: { ticket } });
    expect(textOf(refused)).toMatch(/GATEWAY_CALL_NOT_FOUND/);
  }, 30_000);

  it('per-tool rate limit: the fourth read in a minute is refused with when to call again', async () => {
    const client = await rig.connect('john_doe');
    const read = () => client.callTool({ name: 'files__read_text_file', arguments: { path: join(rig.files, 'seed.txt') } });
    for (let i = 0; i < 3; i++) expect(textOf(await read())).toBe('seed');
    const limited = await read();
    expect(limited.isError).toBe(true);
    expect(textOf(limited)).toMatch(/GATEWAY_RATE_LIMITED/);
  });

  it('an unauthenticated client gets 401 with the protected-resource metadata, which names the SSO issuer', async () => {
    const anonymous = await raw(rig.host.url, { method: 'POST', headers: MCP_HEADERS, body: INITIALIZE });
    expect(anonymous.status).toBe(401);
    const challenge = String(anonymous.headers['www-authenticate']);
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    expect(metadataUrl).toBe(`${new URL(rig.host.url).origin}/.well-known/oauth-protected-resource`);
    const metadata = JSON.parse((await raw(metadataUrl!, {})).body);
    expect(metadata).toMatchObject({ resource: rig.host.url, authorization_servers: [SSO_ISSUER] });
    const wrong = await raw(rig.host.url, {
      method: 'POST',
      headers: { ...MCP_HEADERS, authorization: 'Bearer og_not-a-token' },
      body: INITIALIZE,
    });
    expect(wrong.status).toBe(401);
    const client = new Client({ name: 'anonymous', version: '1' });
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(rig.host.url)))).rejects.toThrow();
  });

  it('a foreign Host gets 403, even with a valid token (DNS rebinding)', async () => {
    const port = new URL(rig.host.url).port;
    const rebound = await raw(rig.host.url, {
      method: 'POST',
      headers: {
        ...MCP_HEADERS,
        host: `rebind.evil.example:${port}`,
        origin: `http://rebind.evil.example:${port}`,
        authorization: `Bearer ${await rig.tokenFor('john_doe')}`,
      },
      body: INITIALIZE,
    });
    expect(rebound.status).toBe(403);
  });

  it("an MCP session is bound to its person: jane's token cannot use john's session", async () => {
    const opened = await raw(rig.host.url, {
      method: 'POST',
      headers: { ...MCP_HEADERS, authorization: `Bearer ${await rig.tokenFor('john_doe')}` },
      body: INITIALIZE,
    });
    expect(opened.status).toBe(200);
    const sessionId = String(opened.headers['mcp-session-id']);
    const hijack = await raw(rig.host.url, {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'mcp-session-id': sessionId, authorization: `Bearer ${await rig.tokenFor('jane_smith')}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(hijack.status).toBe(403);
  });
});
