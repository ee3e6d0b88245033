import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent } from '../../src/core/agent/index.ts';
import { AuditLog } from '../../src/core/audit/index.ts';
import { CoreErrors } from '../../src/core/errors/index.ts';
import { type Identity, throughChannel } from '../../src/core/identity/index.ts';
import { DEFAULT_POLICY_DIR } from '../../src/core/policy/index.ts';
import { createRuntime, type Runtime } from '../../src/core/runtime/index.ts';
import { observeTransactions } from '../../src/core/store/index.ts';
import { defineTool } from '../../src/core/tools/index.ts';
import { sqliteTestStore, type TestStore } from '../../src/testing/test-stores.ts';

const john: Identity = throughChannel({ userId: 7, username: 'john_doe', roles: ['user'] }, 'gateway');

/** Tools that count their runs, so a test sees whether anything ran. */
function readerAgent(runs: string[]) {
  return defineAgent({
    name: 'reader',
    title: 'Reader',
    description: 'reads things',
    instructions: 'read',
    async setup() {
      return {
        route: () => 'direct' as const,
        tools: [
          defineTool({
            name: 'weather',
            description: 'the weather in a city',
            input: z.object({ city: z.string() }),
            mutability: 'read-only',
            cache: false,
            async execute(input: { city: string }, context) {
              runs.push(`weather ${input.city}`);
              await context.audit('weather_asked', { city: input.city });
              return { city: input.city, sky: 'clear' };
            },
          }),
          defineTool({
            name: 'my_tickets',
            description: "the caller's tickets",
            input: z.object({ username: z.string() }),
            identity: { username: 'username' },
            mutability: 'read-only',
            async execute(input: { username: string }) {
              runs.push(`tickets ${input.username}`);
              return [`${input.username}-1`];
            },
          }),
          defineTool({
            name: 'broken',
            description: 'always fails',
            input: z.object({}),
            mutability: 'read-only',
            async execute(): Promise<string> {
              runs.push('broken');
              throw CoreErrors.BAD_REQUEST({ detail: 'the backend said no' });
            },
          }),
          defineTool({
            name: 'secret_report',
            description: 'a read the policy forbids',
            input: z.object({}),
            mutability: 'read-only',
            async execute() {
              runs.push('secret_report');
              return 'secret';
            },
          }),
          defineTool({
            name: 'set_sky',
            description: 'a change',
            input: z.object({ sky: z.string() }),
            mutability: 'mutable',
            async execute() {
              runs.push('set_sky');
              return 'done';
            },
          }),
        ],
      };
    },
  });
}

describe('the read fast path (Runtime.readDirect)', () => {
  let handle: TestStore;
  let runtime: Runtime;
  let policyDir: string;
  let runs: string[];

  const count = async (table: 'sessions' | 'tool_calls' | 'messages') =>
    Number(
      (
        await handle.store.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const events = () => new AuditLog(handle.store).list({ limit: 5000 });

  beforeEach(async () => {
    runs = [];
    handle = await sqliteTestStore.create();
    policyDir = mkdtempSync(join(tmpdir(), 'opsgate-policy-'));
    cpSync(DEFAULT_POLICY_DIR, policyDir, { recursive: true });
    writeFileSync(
      join(policyDir, 'reports.cedar'),
      '@id("no-secret-reports")\n@reason("secret reports are not for anyone")\nforbid (principal, action == Opsgate::Action::"call", resource)\nwhen { context.tool == "secret_report" };\n',
    );
    runtime = await createRuntime({ store: handle.store, agents: [readerAgent(runs)], policyDir });
  });
  afterEach(async () => {
    await runtime.close();
    await handle.dispose();
    rmSync(policyDir, { recursive: true, force: true });
  });

  it('a read runs without a session; one tool_read event says who, which tool, the args digest, the outcome and the call id; the chain verifies', async () => {
    const outcome = await runtime.readDirect({ agent: 'reader', tool: 'weather', args: { city: 'Oslo' } }, john);
    expect(outcome).toEqual({ ran: true, callId: expect.any(String), output: { city: 'Oslo', sky: 'clear' }, isError: false });
    expect(runs).toEqual(['weather Oslo']);
    expect([await count('sessions'), await count('tool_calls'), await count('messages')]).toEqual([0, 0, 0]);
    const callId = outcome.ran ? outcome.callId : '';
    const stored = await events();
    expect(stored.map((e) => [e.type, e.actor, e.sessionId])).toEqual([
      ['weather_asked', 'user:john_doe', null],
      ['tool_read', 'user:john_doe', null],
    ]);
    expect(stored[0]?.payload).toEqual({ city: 'Oslo', callId });
    expect(stored[1]?.payload).toEqual({
      callId,
      agent: 'reader',
      tool: 'weather',
      argsHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      channel: 'gateway',
      policyId: 'read-only-runs',
      durationMs: expect.any(Number),
      outcome: 'executed',
      outputHash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect((await new AuditLog(handle.store).verify()).ok).toBe(true);
  });

  it('concurrent reads are journaled together (group commit) and each keeps its own event', async () => {
    let checkpoints = 0;
    observeTransactions({ transaction: (_ms, _retries, _store, kind) => void (kind === 'checkpoint' && checkpoints++) });
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) => runtime.readDirect({ agent: 'reader', tool: 'weather', args: { city: `c${i}` } }, john)),
    ).finally(() => observeTransactions(undefined));
    expect(outcomes.every((o) => o.ran)).toBe(true);
    expect(checkpoints).toBeGreaterThan(0);
    expect(checkpoints).toBeLessThan(20);
    const reads = (await events()).filter((e) => e.type === 'tool_read');
    expect(new Set(reads.map((e) => e.payload.callId)).size).toBe(20);
    expect((await new AuditLog(handle.store).verify()).ok).toBe(true);
  });

  it('a lone read costs one write transaction (its events), and no read of a session', async () => {
    await runtime.readDirect({ agent: 'reader', tool: 'weather', args: { city: 'warm-up' } }, john);
    const kinds: string[] = [];
    observeTransactions({ transaction: (_ms, _retries, _store, kind) => void kinds.push(kind) });
    try {
      await runtime.readDirect({ agent: 'reader', tool: 'weather', args: { city: 'Bergen' } }, john);
    } finally {
      observeTransactions(undefined);
    }
    expect(kinds.filter((kind) => kind === 'checkpoint')).toEqual(['checkpoint']);
    expect(kinds.filter((kind) => kind === 'other')).toEqual([]);
  });

  it('a failing read is answered as an error and audited with its outcome', async () => {
    const outcome = await runtime.readDirect({ agent: 'reader', tool: 'broken', args: {} }, john);
    expect(outcome).toMatchObject({
      ran: true,
      isError: true,
      output: { code: 'BAD_REQUEST', error: expect.stringMatching(/backend said no/) },
    });
    const [read] = (await events()).filter((e) => e.type === 'tool_read');
    expect(read?.payload).toMatchObject({ tool: 'broken', outcome: 'failed', code: 'BAD_REQUEST' });
  });

  it('identity fields are bound to the caller; naming someone else is left to the session path, which records the refusal', async () => {
    const own = await runtime.readDirect({ agent: 'reader', tool: 'my_tickets', args: {} }, john);
    expect(own).toMatchObject({ ran: true, output: ['john_doe-1'] });
    const borrowed = await runtime.readDirect({ agent: 'reader', tool: 'my_tickets', args: { username: 'alice' } }, john);
    expect(borrowed).toEqual({ ran: false, reason: expect.stringMatching(/alice/) });
    expect(runs).toEqual(['tickets john_doe']);
  });

  it('nothing runs or is recorded for a change, an unknown tool, bad input or a read the policy forbids', async () => {
    const attempts = [
      { tool: 'set_sky', args: { sky: 'grey' } },
      { tool: 'nope', args: {} },
      { tool: 'weather', args: { city: 42 } },
      { tool: 'secret_report', args: {} },
    ];
    for (const attempt of attempts) expect(await runtime.readDirect({ agent: 'reader', ...attempt }, john)).toMatchObject({ ran: false });
    expect(runs).toEqual([]);
    expect(await events()).toEqual([]);
  });
});
