import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditLog } from '../../src/core/audit/index.ts';
import { type GatewayRig, startGatewayRig, textOf, waitForPending } from './gateway-harness.ts';

const SECRET = 'SECRET_TOKEN_4711';

describe('the gateway read fast path, in front of the real filesystem MCP server', () => {
  let rig: GatewayRig;
  const count = async (table: 'sessions' | 'tool_calls' | 'messages') =>
    Number(
      (
        await rig.web.store.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const events = (type: string) => new AuditLog(rig.web.store).list({ type, limit: 5000 });

  beforeAll(async () => {
    rig = await startGatewayRig(`    mask: [${SECRET}]`, 'approvalWaitSeconds: 20\nlimits:\n  perToolPerMinute: 5');
    writeFileSync(join(rig.files, 'notes.txt'), `hello; the key is ${SECRET}\n`);
  }, 30_000);
  afterAll(async () => rig?.close());

  it('a read starts no session and stores no call: one tool_read and one upstream_called event with the same call id, masked result, chain verifies', async () => {
    const before = [await count('sessions'), await count('tool_calls'), await count('messages')];
    const client = await rig.connect('john_doe');
    const read = await client.callTool({ name: 'files__read_text_file', arguments: { path: join(rig.files, 'notes.txt') } });
    expect(read.isError).toBeFalsy();
    expect(textOf(read)).toBe('hello; the key is [masked]\n');
    expect([await count('sessions'), await count('tool_calls'), await count('messages')]).toEqual(before);
    const [readEvent] = await events('tool_read');
    expect(readEvent).toMatchObject({
      actor: 'user:john_doe',
      sessionId: null,
      payload: {
        agent: 'gateway-files',
        tool: 'read_text_file',
        channel: 'gateway',
        outcome: 'executed',
        argsHash: expect.stringMatching(/^[0-9a-f]{64}$/),
        callId: expect.any(String),
      },
    });
    const [upstream] = await events('upstream_called');
    expect(upstream?.payload).toMatchObject({ upstream: 'files', tool: 'read_text_file', callId: readEvent?.payload.callId });
    expect(JSON.stringify(await new AuditLog(rig.web.store).list({ limit: 5000 }))).not.toContain(SECRET);
    expect((await new AuditLog(rig.web.store).verify()).ok).toBe(true);
  });

  it('a read the upstream fails is answered as its error and audited as failed', async () => {
    const client = await rig.connect('john_doe');
    const read = await client.callTool({ name: 'files__read_text_file', arguments: { path: join(rig.files, 'missing.txt') } });
    expect(read.isError).toBe(true);
    expect(textOf(read)).toMatch(/ENOENT|no such file/i);
    const failed = (await events('tool_read')).filter((e) => e.payload.outcome === 'failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]?.payload.code).toBe('GATEWAY_TOOL_ERROR');
  });

  it('the per-tool rate limit holds on the fast path', async () => {
    const client = await rig.connect('alice');
    const read = () => client.callTool({ name: 'files__list_directory', arguments: { path: rig.files } });
    for (let i = 0; i < 5; i++) expect((await read()).isError).toBeFalsy();
    const limited = await read();
    expect(textOf(limited)).toMatch(/GATEWAY_RATE_LIMITED/);
  });

  it('a write keeps the session path: it waits, another person approves, it runs once with its call row and events', async () => {
    const client = await rig.connect('john_doe');
    const target = join(rig.files, 'written.txt');
    const sessionsBefore = await count('sessions');
    const call = client.callTool({ name: 'files__write_file', arguments: { path: target, content: 'once' } });
    const { pending, actor } = await waitForPending(rig, 'alice', 'write_file');
    expect(existsSync(target)).toBe(false);
    await rig.web.runtime.decide(pending.sessionId, { type: 'approve', callId: pending.interrupt.callId }, { ...actor, channel: 'rest' });
    expect((await call).isError).toBeFalsy();
    expect(await count('sessions')).toBe(sessionsBefore + 1);
    const stored = await rig.web.store.db
      .selectFrom('tool_calls')
      .selectAll()
      .where('id', '=', pending.interrupt.callId)
      .executeTakeFirstOrThrow();
    expect(stored.status).toBe('executed');
    const types = (await new AuditLog(rig.web.store).list({ sessionId: pending.sessionId, limit: 100 })).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['tool_proposed', 'tool_approved', 'tool_executing', 'tool_executed', 'upstream_called']));
    expect((await new AuditLog(rig.web.store).verify()).ok).toBe(true);
  }, 30_000);

  it('a read is answered as one JSON body without an SSE stream; a write keeps the stream (progress, elicitation)', async () => {
    const answers: Array<{ tool: unknown; contentType: string | null }> = [];
    const recording: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      const sent = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
      if (sent?.method === 'tools/call') answers.push({ tool: sent.params.name, contentType: response.headers.get('content-type') });
      return response;
    };
    const client = await rig.connect('john_doe', { fetch: recording });
    const read = await client.callTool({ name: 'files__list_allowed_directories', arguments: {} });
    expect(textOf(read)).toContain(rig.files);
    const target = join(rig.files, 'streamed.txt');
    const call = client.callTool({ name: 'files__write_file', arguments: { path: target, content: 'streamed' } });
    const { pending, actor } = await waitForPending(rig, 'alice', 'write_file');
    await rig.web.runtime.decide(pending.sessionId, { type: 'approve', callId: pending.interrupt.callId }, { ...actor, channel: 'rest' });
    expect((await call).isError).toBeFalsy();
    expect(answers).toEqual([
      { tool: 'files__list_allowed_directories', contentType: 'application/json' },
      { tool: 'files__write_file', contentType: 'text/event-stream' },
    ]);
  }, 30_000);
});
