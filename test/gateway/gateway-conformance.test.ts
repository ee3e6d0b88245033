import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type CallToolResult, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATUS_META, TICKET_META } from '../../src/gateway/gateway-mcp-server.ts';
import { freePort } from '../web/web-harness.ts';
import { auditEvents, type GatewayRig, MEMORY_SERVER, startGatewayRig, textOf, waitForPending } from './gateway-harness.ts';

/**
 * The gateway's answers as clients nobody here wrote take them: the MCP Inspector CLI (npm
 * @modelcontextprotocol/inspector, `--cli`) and the TypeScript SDK's Client with its default
 * output validation (it lists the tools first, so it checks every non-error result against the
 * tool's outputSchema). Upstreams are the npm reference servers: filesystem and memory over stdio
 * (every tool has an outputSchema), server-everything over Streamable HTTP (echo and get-sum have
 * none, get-structured-content has one). One gateway for the file; every answer shape is asked for
 * a tool with an outputSchema and one without.
 */

const ROOT = resolve(import.meta.dirname, '..', '..');
const EVERYTHING = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const INSPECTOR = join(ROOT, 'node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js');
const run = promisify(execFile);
/** A test with Inspector runs: each is a Node start, seconds apiece on a loaded machine. */
const INSPECTOR_TEST_MS = 120_000;

/** What the Inspector CLI prints with `--format json`: the result, or the error that stopped it. */
interface InspectorAnswer {
  readonly result?: CallToolResult;
  readonly error?: { readonly message: string };
}

describe('conformance: the MCP Inspector CLI and the validating SDK client against the gateway in front of npm reference servers', () => {
  let rig: GatewayRig;
  let john: Client;
  let remotePort: number;
  let remote: ChildProcess | undefined;
  const scratch = mkdtempSync(join(tmpdir(), 'opsgate-conformance-'));

  /** One Inspector CLI run against the gateway's /mcp as `who`. */
  const inspector = async (who: string, args: string[]): Promise<InspectorAnswer> => {
    const token = await rig.tokenFor(who);
    const { stdout, stderr } = await run(
      process.execPath,
      [
        INSPECTOR,
        '--cli',
        rig.host.url,
        '--transport',
        'http',
        '--header',
        `Authorization: Bearer ${token}`,
        '--format',
        'json',
        '--connect-timeout',
        '60000',
        ...args,
      ],
      { timeout: 90_000 },
    ).catch((error: { stdout?: string; stderr?: string }) => ({ stdout: error.stdout ?? '', stderr: error.stderr ?? '' }));
    const answer = stdout.trim() || stderr.trim();
    return JSON.parse(answer.slice(answer.indexOf('{'))) as InspectorAnswer;
  };
  const inspectorCall = (who: string, tool: string, args: Record<string, unknown>) =>
    inspector(who, ['--method', 'tools/call', '--tool-name', tool, '--tool-args-json', JSON.stringify(args)]);

  const startRemote = async () => {
    remote = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
      env: { ...process.env, PORT: String(remotePort) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    await new Promise<void>((done) => {
      remote!.stderr!.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('listening')) done();
      });
    });
  };

  /** Approves (or rejects) the one call of `tool` waiting in the inbox, as alice. */
  const decide = async (tool: string, decision: 'approve' | 'reject') => {
    const { pending, actor } = await waitForPending(rig, 'alice', tool);
    await rig.web.runtime.decide(
      pending.sessionId,
      decision === 'approve'
        ? { type: 'approve', callId: pending.interrupt.callId }
        : { type: 'reject', callId: pending.interrupt.callId, reason: 'not today' },
      actor,
    );
    return pending.interrupt.callId;
  };

  beforeAll(async () => {
    remotePort = await freePort();
    rig = await startGatewayRig(
      `    tools: { move_file: { policy: deny } }
  - name: memory
    trusted: true
    command: ${process.execPath}
    args: [${JSON.stringify(MEMORY_SERVER)}]
    env: { MEMORY_FILE_PATH: ${JSON.stringify(join(scratch, 'memory.jsonl'))} }
    timeoutMs: 30000
  - name: remote
    trusted: true
    url: http://127.0.0.1:${remotePort}/mcp
    timeoutMs: 30000
    tools:
      get-sum: { policy: ask, risk: low }
      get-env: { policy: deny }
      trigger-long-running-operation: { policy: ask, risk: low }`,
      'approvalWaitSeconds: 1\nlimits: { perUserPerMinute: 200, perToolPerMinute: 12, maxResultBytes: 1024 }',
    );
    writeFileSync(join(rig.files, 'seed.txt'), 'seed');
    john = await rig.connect('john_doe');
  }, 120_000);

  afterAll(async () => {
    await rig?.close();
    remote?.kill();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('an upstream down at start and up later is callable, not only listed (F4); the client is told the list changed', async () => {
    const changed: string[] = [];
    john.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      changed.push('tools');
    });
    const before = (await john.listTools()).tools.map((t) => t.name);
    expect(before.some((name) => name.startsWith('remote__'))).toBe(false);
    const down = await john.callTool({ name: 'remote__echo', arguments: { message: 'too early' } });
    expect(down.isError).toBe(true);
    expect(textOf(down)).toMatch(/GATEWAY_UPSTREAM_UNAVAILABLE/);

    await startRemote();
    // Three failed connects opened the upstream's circuit breaker: it is tried again within seconds.
    let after = (await john.listTools()).tools;
    await expect
      .poll(
        async () => {
          after = (await john.listTools()).tools;
          return after.some((t) => t.name.startsWith('remote__'));
        },
        { timeout: 45_000, interval: 1_000 },
      )
      .toBe(true);
    expect(after.find((t) => t.name === 'remote__get-structured-content')?.outputSchema).toBeDefined();
    const echoed = await john.callTool({ name: 'remote__echo', arguments: { message: 'late but here' } });
    expect(echoed.isError).toBeFalsy();
    expect(textOf(echoed)).toContain('late but here');
    await expect.poll(() => changed.length).toBeGreaterThan(0);
  }, 90_000);

  it(
    'ran: reads with and without an outputSchema, through both clients',
    async () => {
      const read = await john.callTool({ name: 'files__read_text_file', arguments: { path: join(rig.files, 'seed.txt') } });
      expect(read.structuredContent).toEqual({ content: 'seed' });
      const graph = await john.callTool({ name: 'memory__read_graph', arguments: {} });
      expect(graph.structuredContent).toMatchObject({ entities: [] });
      const weather = await john.callTool({ name: 'remote__get-structured-content', arguments: { location: 'Chicago' } });
      expect(weather.structuredContent).toMatchObject({ temperature: expect.any(Number) });
      expect(textOf(await john.callTool({ name: 'remote__echo', arguments: { message: 'hello' } }))).toContain('hello');

      const viaInspector = await inspectorCall('jane_smith', 'files__read_text_file', { path: join(rig.files, 'seed.txt') });
      expect(viaInspector.error).toBeUndefined();
      expect(viaInspector.result?.structuredContent).toEqual({ content: 'seed' });
    },
    INSPECTOR_TEST_MS,
  );

  it(
    'waiting, then approved later through gateway_collect: a tool with an outputSchema and one without, through both clients',
    async () => {
      const target = join(rig.files, 'waited.txt');
      const waiting = await john.callTool({ name: 'files__write_file', arguments: { path: target, content: 'later' } });
      expect(waiting._meta?.[STATUS_META]).toBe('waiting_for_approval');
      expect(textOf(waiting)).toMatch(/Waiting for approval on the opsgate server; nothing has run yet/);
      expect(textOf(waiting)).toContain(waiting._meta?.[TICKET_META] as string);
      await decide('write_file', 'approve');
      const collected = await john.callTool({ name: 'gateway_collect', arguments: { ticket: waiting._meta?.[TICKET_META] } });
      expect(collected.isError).toBeFalsy();
      expect(readFileSync(target, 'utf8')).toBe('later');

      const sum = await john.callTool({ name: 'remote__get-sum', arguments: { a: 2, b: 40 } });
      expect(sum._meta?.[STATUS_META]).toBe('waiting_for_approval');
      await decide('get-sum', 'approve');
      expect(textOf(await john.callTool({ name: 'gateway_collect', arguments: { ticket: sum._meta?.[TICKET_META] } }))).toContain('42');

      // The Inspector: memory's create_entities declares an outputSchema, the waiting answer is not held against it.
      const entities = [{ name: 'web1', entityType: 'host', observations: ['restarted'] }];
      const inspected = await inspectorCall('jane_smith', 'memory__create_entities', { entities });
      expect(inspected.error).toBeUndefined();
      expect(inspected.result?._meta?.[STATUS_META]).toBe('waiting_for_approval');
      // Approvers read the name the client used, which names the upstream (F12).
      const { pending } = await waitForPending(rig, 'alice', 'create_entities');
      expect(pending.interrupt.preview).toMatchObject({ headline: 'memory__create_entities', details: { entities } });
      await decide('create_entities', 'approve');
      const done = await inspectorCall('jane_smith', 'gateway_collect', { ticket: inspected.result?._meta?.[TICKET_META] });
      expect(done.result?.isError).toBeFalsy();
      expect(done.result?.structuredContent).toMatchObject({ entities });
    },
    INSPECTOR_TEST_MS,
  );

  it(
    'rejected: an error result naming who rejected it, for both kinds of tool and both clients',
    async () => {
      const target = join(rig.files, 'rejected.txt');
      const waiting = await john.callTool({ name: 'files__write_file', arguments: { path: target, content: 'no' } });
      await decide('write_file', 'reject');
      const collected = await john.callTool({ name: 'gateway_collect', arguments: { ticket: waiting._meta?.[TICKET_META] } });
      expect(collected.isError).toBe(true);
      expect(textOf(collected)).toMatch(/Rejected by alice: not today\. Nothing ran\./);
      expect(existsSync(target)).toBe(false);

      // john's own ticket, collected by the Inspector under his token.
      const sum = await john.callTool({ name: 'remote__get-sum', arguments: { a: 3, b: 4 } });
      await decide('get-sum', 'reject');
      const refused = await inspectorCall('john_doe', 'gateway_collect', { ticket: sum._meta?.[TICKET_META] });
      expect(refused.error).toBeUndefined();
      expect(refused.result?.isError).toBe(true);
      expect(textOf(refused.result)).toMatch(/Rejected by alice: not today/);
    },
    INSPECTOR_TEST_MS,
  );

  it(
    'refused: a denied tool and invalid arguments are error results, with and without an outputSchema',
    async () => {
      for (const [tool, args] of [
        ['files__move_file', { source: 'a', destination: 'b' }],
        ['remote__get-env', {}],
      ] as const) {
        const denied = await john.callTool({ name: tool, arguments: args });
        expect(denied.isError).toBe(true);
        expect(textOf(denied)).toMatch(/GATEWAY_TOOL_DENIED/);
      }
      const invalid = await john.callTool({ name: 'remote__echo', arguments: { text: 'no message' } });
      expect(textOf(invalid)).toMatch(/INVALID_TOOL_INPUT/);
      // A denied tool is not listed, so the Inspector would refuse it itself; invalid arguments reach the gateway.
      const inspected = await inspectorCall('jane_smith', 'files__read_text_file', { path: 42 });
      expect(inspected.error).toBeUndefined();
      expect(inspected.result?.isError).toBe(true);
      expect(textOf(inspected.result)).toMatch(/INVALID_TOOL_INPUT/);
    },
    INSPECTOR_TEST_MS,
  );

  it(
    'limits: a result over maxResultBytes and a rate limit are error results, never schema errors',
    async () => {
      writeFileSync(join(rig.files, 'big.txt'), 'x'.repeat(1500));
      const big = await john.callTool({ name: 'files__read_text_file', arguments: { path: join(rig.files, 'big.txt') } });
      expect(big.isError).toBe(true);
      expect(textOf(big)).toMatch(/GATEWAY_RESULT_TOO_LARGE/);
      const loud = await inspectorCall('jane_smith', 'remote__echo', { message: 'y'.repeat(1500) });
      expect(loud.result?.isError).toBe(true);
      expect(textOf(loud.result)).toMatch(/GATEWAY_RESULT_TOO_LARGE/);

      for (const tool of ['files__read_text_file', 'remote__echo']) {
        const args = tool === 'remote__echo' ? { message: 'again' } : { path: join(rig.files, 'seed.txt') };
        let last = await john.callTool({ name: tool, arguments: args });
        for (let i = 0; i < 12 && !last.isError; i++) last = await john.callTool({ name: tool, arguments: args });
        expect(last.isError).toBe(true);
        expect(textOf(last)).toMatch(/GATEWAY_RATE_LIMITED/);
      }
    },
    INSPECTOR_TEST_MS,
  );

  it(
    'unknown: the stdio upstream dies after the approved call was sent; the call is recorded unknown and answered as an error (outputSchema; the HTTP row without one is below)',
    async () => {
      const waiting = await john.callTool({
        name: 'memory__create_entities',
        arguments: { entities: [{ name: 'db1', entityType: 'host', observations: [] }] },
      });
      const memory = rig.gateway.upstreams.get('memory')!;
      await expect.poll(() => memory.status().pid).toBeGreaterThan(0);
      const pid = memory.status().pid!;
      // Stopped, it takes the request and never answers; then it dies with the request unanswered.
      process.kill(pid, 'SIGSTOP');
      const sent = memory.status().calls;
      const decided = decide('create_entities', 'approve');
      await expect.poll(() => memory.status().calls).toBeGreaterThan(sent);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      process.kill(pid, 'SIGKILL');
      const callId = await decided;
      const collected = await inspectorCall('john_doe', 'gateway_collect', { ticket: waiting._meta?.[TICKET_META] });
      expect(collected.error).toBeUndefined();
      expect(collected.result?.isError).toBe(true);
      expect(textOf(collected.result)).toMatch(/Whether it ran is unknown/);
      expect((await auditEvents(rig, 'tool_unknown')).some((e) => e.payload.callId === callId)).toBe(true);
      // The next call starts the upstream again.
      const again = await john.callTool({ name: 'memory__read_graph', arguments: {} });
      expect(again.isError).toBeFalsy();
    },
    INSPECTOR_TEST_MS,
  );

  it(
    'upstream down mid-call (known at once, not at the timeout: F11) and after it was listed: error results the client accepts, with and without an outputSchema',
    async () => {
      const waiting = await john.callTool({ name: 'remote__trigger-long-running-operation', arguments: { duration: 20, steps: 20 } });
      const upstream = rig.gateway.upstreams.get('remote')!;
      const sent = upstream.status().calls;
      const decided = decide('trigger-long-running-operation', 'approve');
      await expect.poll(() => upstream.status().calls).toBeGreaterThan(sent);
      // Time for the request to reach the server; the operation runs 20 s, the upstream timeout is 30 s.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      remote!.kill('SIGKILL');
      await new Promise((done) => remote!.once('exit', done));
      const callId = await decided;
      const broken = await john.callTool({ name: 'gateway_collect', arguments: { ticket: waiting._meta?.[TICKET_META] } });
      expect(broken.isError).toBe(true);
      // Its answer's stream broke: that is an upstream gone mid-call, not one that did not answer in time.
      expect(textOf(broken)).toMatch(/went away while running trigger-long-running-operation.*recorded the call as unknown/s);
      expect((await auditEvents(rig, 'tool_unknown')).some((e) => e.payload.callId === callId)).toBe(true);

      for (const [tool, args] of [
        ['remote__get-structured-content', { location: 'Chicago' }],
        ['remote__get-tiny-image', {}],
      ] as const) {
        const down = await john.callTool({ name: tool, arguments: args });
        expect(down.isError).toBe(true);
        expect(textOf(down)).toMatch(/GATEWAY_UPSTREAM_UNAVAILABLE|GATEWAY_OUTCOME_UNKNOWN/);
      }
      const inspected = await inspectorCall('jane_smith', 'remote__get-structured-content', { location: 'Chicago' });
      expect(inspected.error).toBeUndefined();
      expect(inspected.result?.isError).toBe(true);
    },
    INSPECTOR_TEST_MS,
  );
});
