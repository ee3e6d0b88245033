import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { accessAgent } from '../../src/agents/access/index.ts';
import type { Identity } from '../../src/core/identity/index.ts';
import { createRuntime, type Runtime } from '../../src/core/runtime/index.ts';
import { sqliteTestStore, type TestStore } from '../../src/testing/index.ts';

const john: Identity = { userId: 1, username: 'john_doe', roles: ['user'] };

/**
 * Issue 13: "in one session, 'I need access to Jira' got the previous answer word for word".
 * Reproduced with the offline model through the whole runtime (stored history read back into the
 * prompt): after a clarifying answer, the next request was glued to the earlier one and the
 * earlier target won.
 */
describe('the access agent in a multi-turn session (offline model)', () => {
  let testStore: TestStore;
  let runtime: Runtime;
  let dir: string;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'opsgate-access-turns-'));
    testStore = await sqliteTestStore.create(accessAgent.migrations ?? []);
    runtime = await createRuntime({ store: testStore.store, agents: [accessAgent], dataDir: dir, env: {} });
  });
  afterEach(async () => {
    await runtime.close();
    await testStore.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  const answer = async (sessionId: string, text: string) =>
    (await runtime.send(sessionId, text, john)).messages
      .filter((m) => m.role === 'assistant' && m.text)
      .map((m) => m.text)
      .join('\n');

  it('each request gets its own answer; none repeats the previous one', async () => {
    const session = await runtime.startSession({ agent: 'access', identity: john });
    const said: string[] = [];
    for (const text of [
      'I need DB_ADMIN',
      'I need access to Jira',
      'I need access to the wiki',
      'I need access to Jira',
      'I need database access',
    ])
      said.push(await answer(session.id, text));
    for (let i = 1; i < said.length; i += 1) expect(said[i], `answer ${i} repeats answer ${i - 1}`).not.toBe(said[i - 1]);
    expect(said[1]).toContain('fits "jira"');
    expect(said[2]).toContain('fits "wiki"');
    expect(said[3]).toContain('fits "jira"');
    expect(said[4]).toMatch(/^I found multiple database accesses/);
    // A short answer to that question still completes the request.
    const proposal = await runtime.send(session.id, 'Production, read only', john);
    expect(proposal.interrupt).toMatchObject({ type: 'approval', tool: 'grant_access_to_user', args: { access_name: 'DB_READ_PROD' } });
  });
});
