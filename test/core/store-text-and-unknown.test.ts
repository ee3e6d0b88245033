import type { Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent } from '../../src/core/agent/index.ts';
import { AuditLog } from '../../src/core/audit/index.ts';
import type { Identity } from '../../src/core/identity/index.ts';
import { UserRepository } from '../../src/core/identity/users.ts';
import { createRuntime, type Runtime } from '../../src/core/runtime/index.ts';
import { defineTool } from '../../src/core/tools/index.ts';
import { type TestStore, testStoreFactories } from '../../src/testing/index.ts';

// Review M7: on PostgreSQL a command whose output held a NUL byte ran but was recorded
// `tool_failed` ("invalid byte sequence for encoding UTF8: 0x00"), inviting a second run; NUL in
// a chat message or a title gave 502/500. Text is now stored safely on both stores, and a store
// failure after a side effect began is recorded `unknown`, never `failed`.
const sideEffects: string[] = [];

const hostAgent = defineAgent({
  name: 'host',
  title: 'Host',
  description: 'Runs a command and keeps its own record (a test double of the troubleshoot agent).',
  instructions: 'Run what the person asks.',
  migrations: [
    {
      name: 'test-host-outputs',
      async up(db: Kysely<unknown>) {
        await db.schema.createTable('host_outputs').addColumn('command', 'text').addColumn('output', 'text').execute();
      },
    },
  ],
  async setup({ store }) {
    const outputs = store.db as unknown as Kysely<{ host_outputs: { command: string; output: string } }>;
    return {
      tools: [
        defineTool({
          name: 'run_command',
          description: 'Run a command on the host.',
          input: z.object({ command: z.string() }),
          mutability: 'mutable',
          risk: 'low',
          execute: async (input) => {
            sideEffects.push(input.command);
            // What real hosts print: /proc/1/cmdline separates arguments with NUL; a broken tool
            // may also emit half a surrogate pair.
            const output = input.command === 'cat /proc/1/cmdline' ? '/sbin/init\u0000splash\u0000' : `ok \ud800 done`;
            if (input.command === 'bookkeeping fails') {
              // The command ran; writing its own record failed in the store.
              const error = Object.assign(new Error('could not serialize access due to read/write dependencies'), {
                code: '40001',
                severity: 'ERROR',
              });
              throw error;
            }
            // The agent's own record of what ran, as the troubleshoot agent keeps command_history.
            await outputs.insertInto('host_outputs').values({ command: input.command, output }).execute();
            return { output };
          },
        }),
      ],
    };
  },
});

describe.each(testStoreFactories())('text a store can hold, and outcomes after a store failure, on $dialect', (factory) => {
  let handle: TestStore;
  let runtime: Runtime;
  let john: Identity;

  beforeEach(async () => {
    sideEffects.length = 0;
    handle = await factory.create();
    runtime = await createRuntime({ store: handle.store, agents: [hostAgent], env: {} });
    const user = await new UserRepository(handle.store).create({ username: 'john_doe', roles: ['user'] });
    john = { userId: user.id, username: 'john_doe', roles: ['user'] };
  });
  afterEach(async () => {
    await runtime.close();
    await handle.dispose();
  });

  async function runApproved(command: string) {
    const session = await runtime.startSession({ agent: 'host', identity: john, title: 'title with \u0000 NUL and \udc00' });
    const proposed = await runtime.callTool(session.id, { tool: 'run_command', args: { command } }, john);
    if (proposed.interrupt?.type !== 'approval') throw new Error('expected an approval');
    const done = await runtime.decide(session.id, { type: 'approve', callId: proposed.interrupt.callId }, john);
    return { session, done, callId: proposed.interrupt.callId };
  }

  it('a command whose output holds NUL and a lone surrogate is recorded executed, and the audit verifies', async () => {
    const { done, callId } = await runApproved('cat /proc/1/cmdline');
    const call = done.session.toolCalls.find((c) => c.id === callId);
    expect(call?.status).toBe('executed');
    expect(sideEffects).toEqual(['cat /proc/1/cmdline']);
    expect((await runApproved('echo half')).done.session.toolCalls.at(-1)?.status).toBe('executed');
    expect((await new AuditLog(handle.store).verify()).ok).toBe(true);
  });

  it('a message and a title with NUL are stored, not refused', async () => {
    const session = await runtime.startSession({ agent: 'host', identity: john, title: 'a\u0000b' });
    const snapshot = await runtime.getSession(session.id, john);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is the point
    expect(snapshot.title).toMatch(/^a(\u0000|\u2400)b$/);
  });

  it('a store failure after the side effect began leaves the call unknown, not failed, and it is never re-run', async () => {
    const { done, callId } = await runApproved('bookkeeping fails');
    const call = done.session.toolCalls.find((c) => c.id === callId);
    expect(call?.status).toBe('unknown');
    expect(sideEffects).toEqual(['bookkeeping fails']);
    const events = await new AuditLog(handle.store).list({ sessionId: done.session.id });
    expect(events.map((event) => event.type)).toContain('tool_unknown');
    expect(events.map((event) => event.type)).not.toContain('tool_failed');
    const result = done.messages.find((message) => message.toolResult?.callId === callId)?.toolResult;
    expect(result?.output).toMatchObject({ code: 'CALL_OUTCOME_UNKNOWN' });
    expect(JSON.stringify(result?.output)).toContain('will not be run again');
  });
});
