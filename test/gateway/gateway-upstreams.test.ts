import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../web/web-harness.ts';
import { auditEvents, type GatewayRig, startGatewayRig, textOf, waitForPending } from './gateway-harness.ts';

const EVERYTHING = resolve(
  import.meta.dirname,
  '..',
  '..',
  'node_modules',
  '@modelcontextprotocol',
  'server-everything',
  'dist',
  'index.js',
);

describe('upstreams that die, upstreams over HTTP, upstreams that are not there', () => {
  let rig: GatewayRig;
  let httpUpstream: ReturnType<typeof spawn>;
  beforeAll(async () => {
    const port = await freePort();
    httpUpstream = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    await new Promise<void>((done) => {
      httpUpstream.stderr!.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('listening')) done();
      });
    });
    // The admin pins the long-running operation to "ask": annotations are hints, the pin is the word.
    rig = await startGatewayRig(`  - name: everything
    trusted: true
    command: ${process.execPath}
    args: [${JSON.stringify(EVERYTHING)}, stdio]
    timeoutMs: 10000
    mask: [SECRET_ECHO_1234]
    tools:
      trigger-long-running-operation: { policy: ask, risk: medium }
  - name: remote
    trusted: true
    url: http://127.0.0.1:${port}/mcp
    headers: { x-team: ops }
  - name: gone
    url: http://127.0.0.1:9/mcp
    timeoutMs: 1000`);
  }, 60_000);
  afterAll(async () => {
    await rig?.close();
    httpUpstream?.kill();
  });

  it('the upstream killed mid-call: the call is recorded unknown, the client gets a clear error, and it restarts and serves again', async () => {
    const client = await rig.connect('john_doe');
    const call = client.callTool({ name: 'everything__trigger-long-running-operation', arguments: { duration: 4, steps: 4 } }, undefined, {
      timeout: 60_000,
    });
    const { pending, actor } = await waitForPending(rig, 'alice', 'trigger-long-running-operation');
    const decided = rig.web.runtime.decide(pending.sessionId, { type: 'approve', callId: pending.interrupt.callId }, actor);
    const everything = rig.gateway.upstreams.get('everything')!;
    await expect.poll(async () => (await callStatus(rig, pending.interrupt.callId)) === 'executing', { timeout: 10_000 }).toBe(true);
    const pid = everything.status().pid!;
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, 'SIGKILL');
    await decided;
    const result = await call;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/went away while running trigger-long-running-operation.*recorded the call as unknown/s);
    expect(await callStatus(rig, pending.interrupt.callId)).toBe('unknown');
    expect((await auditEvents(rig, 'tool_unknown')).filter((e) => e.payload.callId === pending.interrupt.callId)).toHaveLength(1);
    expect(everything.status()).toMatchObject({ state: 'down', lastError: expect.any(String) });

    const again = await client.callTool({ name: 'everything__echo', arguments: { message: 'back again' } });
    expect(textOf(again)).toContain('back again');
    expect(everything.status()).toMatchObject({ state: 'up', pid: expect.any(Number) });
    expect(everything.status().pid).not.toBe(pid);
  }, 40_000);

  it('a Streamable HTTP upstream is served like a stdio one, namespaced', async () => {
    const client = await rig.connect('jane_smith');
    const result = await client.callTool({ name: 'remote__get-sum', arguments: { a: 2, b: 40 } });
    expect(textOf(result)).toContain('42');
    expect(rig.gateway.status().find((s) => s.name === 'remote')).toMatchObject({ transport: 'http', state: 'up' });
  });

  it('an upstream that is not there: opsgate still starts, offers none of its tools, and the admin sees why', async () => {
    const client = await rig.connect('john_doe');
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names.some((n) => n.startsWith('gone__'))).toBe(false);
    expect(rig.gateway.status().find((s) => s.name === 'gone')).toMatchObject({ state: 'down', lastError: expect.any(String) });
  });

  it('prompts and resources pass through, namespaced per upstream, each read answered by the upstream that listed it (F9)', async () => {
    const client = await rig.connect('john_doe');
    const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
    expect(prompts).toContain('everything__simple-prompt');
    const uris = (await client.listResources()).resources.map((r) => r.uri);
    expect(new Set(uris).size).toBe(uris.length);
    const local = uris.filter((uri) => uri.startsWith('everything+'));
    expect(local.length).toBeGreaterThan(0);
    expect(uris).toContain(local[0]!.replace('everything+', 'remote+'));
    const read = await client.readResource({ uri: local[0]! });
    expect(read.contents[0]?.uri).toBe(local[0]);
    await expect(client.readResource({ uri: local[0]!.slice('everything+'.length) })).rejects.toThrow(/start with their upstream's name/);
    const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    expect(new Set(templates).size).toBe(templates.length);
  });

  it('mask covers prompts and upstream errors, not only tool results (F8)', async () => {
    const client = await rig.connect('john_doe');
    const prompt = await client.getPrompt({ name: 'everything__args-prompt', arguments: { city: 'SECRET_ECHO_1234', state: 'CA' } });
    expect(JSON.stringify(prompt)).not.toContain('SECRET_ECHO_1234');
    expect(JSON.stringify(prompt)).toContain('[masked]');
    const failed = await client.readResource({ uri: 'everything+demo://resource/SECRET_ECHO_1234' }).catch((error: Error) => error);
    expect(failed).toBeInstanceOf(Error);
    expect((failed as Error).message).not.toContain('SECRET_ECHO_1234');
  });
});

async function callStatus(rig: GatewayRig, callId: string): Promise<string | undefined> {
  const row = await rig.web.store.db.selectFrom('tool_calls').select('status').where('id', '=', callId).executeTakeFirst();
  return row?.status;
}
