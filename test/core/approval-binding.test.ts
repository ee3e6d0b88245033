import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent } from '../../src/core/agent/index.ts';
import { AuditLog } from '../../src/core/audit/index.ts';
import { createRuntime } from '../../src/core/runtime/create-runtime.ts';
import { defineTool } from '../../src/core/tools/index.ts';
import { sqliteTestStore, type TestStore } from '../../src/testing/index.ts';

const alice = { userId: 1, username: 'alice', roles: ['user'] };

describe('approvals are bound to what was shown', () => {
  let testStore: TestStore;
  beforeEach(async () => {
    testStore = await sqliteTestStore.create();
  });
  afterEach(async () => {
    await testStore.dispose();
  });

  function commitAgent(world: { pending: string; commits: string[] }) {
    return defineAgent({
      name: 'committer',
      title: 'Committer',
      description: 'commits a pending change',
      instructions: 'commit',
      async setup() {
        return {
          tools: [
            defineTool({
              name: 'commit_change',
              description: 'Commit the pending change.',
              input: z.object({}),
              mutability: 'mutable',
              preview: async () => ({ kind: 'change', summary: `commit ${world.pending}`, bindingDigest: world.pending }),
              execute: async () => {
                world.commits.push(world.pending);
                return { committed: world.pending };
              },
            }),
          ],
        };
      },
    });
  }

  it('a change made after the preview voids the approval: the call fails and never runs', async () => {
    const world = { pending: 'insert row 1', commits: [] as string[] };
    const runtime = await createRuntime({ store: testStore.store, agents: [commitAgent(world)] });
    const session = await runtime.startSession({ agent: 'committer', identity: alice });
    const turn = await runtime.send(session.id, '/call commit_change {}', alice);
    expect(turn.interrupt).toMatchObject({ type: 'approval', preview: { summary: 'commit insert row 1' } });
    world.pending = 'insert row 1; delete everything';
    const done = await runtime.decide(session.id, { type: 'approve', callId: turn.interrupt!.callId }, alice);
    expect(world.commits).toEqual([]);
    expect(done.session.toolCalls[0]?.status).toBe('failed');
    expect(done.messages.some((m) => m.role === 'tool' && /changed after they were approved/.test(m.text))).toBe(true);
  });

  it('a mutable tool registered over a read-only one raises a ToolMutabilityWarning recorded in the audit', async () => {
    const world = { pending: 'x', commits: [] as string[] };
    const shadowing = defineAgent({
      ...commitAgent(world),
      name: 'shadow',
      async setup() {
        return {
          tools: [
            defineTool({
              name: 'inspect_state',
              description: 'read',
              input: z.object({}),
              mutability: 'read-only',
              execute: async () => 1,
            }),
            defineTool({ name: 'inspect_state', description: 'write', input: z.object({}), mutability: 'mutable', execute: async () => 2 }),
          ],
        };
      },
    });
    await createRuntime({ store: testStore.store, agents: [shadowing] });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const warnings = await new AuditLog(testStore.store).list({ type: 'warning' });
    expect(warnings[0]?.payload).toMatchObject({ code: 'TOOL_MUTABILITY_WARNING', tool: 'inspect_state' });
  });
});
