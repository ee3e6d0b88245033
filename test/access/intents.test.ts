import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessApiClient } from '../../src/agents/access/client/access-api-client.ts';
import { accessInterpreter } from '../../src/agents/access/intents.ts';
import { accessCatalogMigrations, createAccessService, seedAccessDemoData } from '../../src/agents/access/service/index.ts';
import { createAccessTools } from '../../src/agents/access/tools/access-tools.ts';
import type { InterpreterTurn } from '../../src/core/model/interpreter-rules.ts';
import type { AnyToolDefinition } from '../../src/core/tools/index.ts';
import { sqliteTestStore, type TestStore } from '../../src/testing/test-stores.ts';
import { createTestToolContext } from '../../src/testing/tool-context.ts';

const ADMIN_KEY = 'interpreter-test-key';
let testStore: TestStore;
let service: FastifyInstance;
let tools: AnyToolDefinition[];

beforeAll(async () => {
  testStore = await sqliteTestStore.create([...accessCatalogMigrations]);
  await seedAccessDemoData(testStore.store);
  service = createAccessService({ store: testStore.store, adminKey: ADMIN_KEY });
  const url = await service.listen({ port: 0, host: '127.0.0.1' });
  tools = createAccessTools({ client: new AccessApiClient({ baseUrl: url, adminKey: ADMIN_KEY }) });
});
afterAll(async () => {
  await service.close();
  await testStore.dispose();
});

type Step = InterpreterTurn['steps'][number];
type History = Array<{ role: 'user' | 'assistant'; text: string }>;

/**
 * Drives the rules like the runtime would, against the real tools: read-only calls run, the
 * mutable grant stops the turn as a proposal (the approval interrupt).
 */
async function turn(userText: string, history: History, username = 'john_doe', steps: Step[] = []) {
  const context = createTestToolContext({ identity: { userId: 1, username, roles: ['user'] } });
  for (let i = 0; i < 10; i += 1) {
    const action = accessInterpreter.next({
      userText,
      steps,
      history,
      tools: tools.map((t) => ({ name: t.name, description: t.description })),
      system: '',
    });
    if (!action) return { text: undefined, steps };
    if (!('toolCalls' in action)) {
      history.push({ role: 'user', text: userText }, { role: 'assistant', text: action.text });
      return { text: action.text, steps };
    }
    const call = action.toolCalls[0]!;
    const tool = tools.find((t) => t.name === call.toolName)!;
    const input = tool.input.parse({ ...call.input, ...(tool.identity?.username ? { username } : {}) });
    if (tool.mutability === 'mutable') return { text: action.text, steps, proposal: { tool: tool.name, input } };
    steps.push({ toolName: tool.name, input, output: await tool.execute(input, context), isError: false });
  }
  throw new Error('no answer after 10 steps');
}

/** Approves the proposal: runs the grant and lets the rules answer. */
async function approve(userText: string, history: History, steps: Step[], proposal: { tool: string; input: Record<string, unknown> }) {
  const tool = tools.find((t) => t.name === proposal.tool)!;
  const output = await tool.execute(proposal.input, createTestToolContext());
  steps.push({ toolName: tool.name, input: proposal.input, output, isError: false });
  return turn(userText, history, proposal.input.username as string, steps);
}

describe('access interpreter flows (spec examples, against the real service)', () => {
  it('flow 1: read documents → list, check, offer → yes → grant → confirm', async () => {
    const history: History = [];
    const first = await turn('I need access to read documents', history);
    expect(first.steps.map((s) => s.toolName)).toEqual(['list_available_accesses', 'get_user_accesses']);
    expect(first.text).toBe('I found READ_DOCUMENTS access. Would you like me to grant it?');
    expect(first.proposal).toEqual({ tool: 'grant_access_to_user', input: { access_name: 'READ_DOCUMENTS', username: 'john_doe' } });
    const done = await approve('I need access to read documents', history, first.steps, first.proposal!);
    expect(done.text).toBe("I've granted you READ_DOCUMENTS access.");
    const again = await turn('I need access to read documents', []);
    expect(again.text).toBe('You already have READ_DOCUMENTS access.');
    expect(again.proposal).toBeUndefined();
  });

  it('flow 2: database access → asks environment and mode → "Production, read only" → DB_READ_PROD with its renewal period', async () => {
    const history: History = [];
    const first = await turn('I need database access', history);
    // The held accesses come first: they carry the person's teams, which bound what may be offered.
    expect(first.steps.map((s) => s.toolName)).toEqual(['list_available_accesses', 'get_user_accesses']);
    expect(first.text).toBe(
      'I found multiple database accesses. Which environment do you need: development, staging, or production? And do you need read or write access?',
    );
    expect(first.proposal).toBeUndefined();
    const second = await turn('Production, read only', history);
    expect(second.proposal).toEqual({ tool: 'grant_access_to_user', input: { access_name: 'DB_READ_PROD', username: 'john_doe' } });
    expect(second.text).toBe(
      'I found DB_READ_PROD access (Read the production database). It has a renewal period of 30 days: the grant expires 30 days after it is made unless renewed. Would you like me to grant it?',
    );
    const done = await approve('Production, read only', history, second.steps, second.proposal!);
    expect(done.text).toBe("I've granted you DB_READ_PROD access.");
  });

  it('flow 2 variant: "production" alone is still ambiguous, the agent asks read or write', async () => {
    const history: History = [];
    await turn('I need database access', history, 'jane_smith');
    const second = await turn('production', history, 'jane_smith');
    expect(second.proposal).toBeUndefined();
    expect(second.text).toBe('I found multiple production database accesses. Do you need read or write access?');
    const third = await turn('write', history, 'jane_smith');
    expect(third.proposal?.input).toEqual({ access_name: 'DB_WRITE_PROD', username: 'jane_smith' });
    expect(third.text).toContain('renewal period of 14 days');
  });

  it('flow 3: engineering team accesses are listed from the team tags, nothing is granted', async () => {
    const result = await turn('What accesses are available for the engineering team?', []);
    expect(result.steps.map((s) => [s.toolName, s.input])).toEqual([['list_available_accesses', { team: 'engineering' }]]);
    expect(result.proposal).toBeUndefined();
    expect(result.text).toMatch(
      /^For the engineering team, here are the available accesses:\n- READ_DOCUMENTS: View documents in the system\n/,
    );
    expect(result.text).toContain('- DB_WRITE_PROD: Write to the production database (renewal every 14 days)');
    expect(result.text).not.toContain('BILLING_ADMIN');
  });

  it('accesses the person already holds are not suggested as the nearest (issue 31, review A5)', async () => {
    const list = tools.find((t) => t.name === 'list_available_accesses')!;
    const context = createTestToolContext({ identity: { userId: 1, username: 'john_doe', roles: ['user'] } });
    const steps: Step[] = [
      { toolName: 'list_available_accesses', input: {}, output: await list.execute(list.input.parse({}), context), isError: false },
      {
        toolName: 'get_user_accesses',
        input: {},
        output: { accesses: [{ name: 'DB_READ_PROD' }], teams: ['engineering'] },
        isError: false,
      },
    ];
    const typo = await turn('I need DB_READ_PRD', [], 'john_doe', steps);
    expect(typo.text).toMatch(/^There is no access named DB_READ_PRD\. The closest catalog accesses are: /);
    expect(typo.text).not.toContain('DB_READ_PROD');
  });

  it('a production access is a "nearest" suggestion only when the request names production (review A5: "Jira" offered DB_WRITE_PROD)', async () => {
    const jira = await turn('I need access to Jira', []);
    const suggested = jira.text!.slice(jira.text!.indexOf('The nearest ones are: '));
    expect(suggested).toMatch(/^The nearest ones are: [A-Z]/);
    expect(suggested).not.toMatch(/_PROD\b/);
    const typo = await turn('I need DB_WRITE_PRD', []);
    expect(typo.text).toMatch(/^There is no access named DB_WRITE_PRD\. The closest catalog accesses are: .*DB_WRITE_PROD/);
  });

  it('an unknown access gets the closest catalog names and no proposal', async () => {
    const typo = await turn('I need DB_READ_PRD', []);
    expect(typo.text).toMatch(
      // john was granted DB_READ_PROD in flow 2 above, so it is no longer a suggestion.
      /^There is no access named DB_READ_PRD\. The closest catalog accesses are: [A-Z_]+ \(/,
    );
    expect(typo.proposal).toBeUndefined();
    const vague = await turn('I need access to the kubernetes cluster', []);
    expect(vague.text).toMatch(
      /^None of the accesses open to your teams \(engineering\) fits "kubernetes cluster", so I am not proposing any\. The nearest ones are: /,
    );
  });

  it('a new request after a clarifying question is its own request, not an answer glued to the old one (issue 13: "I need access to Jira" got the previous answer word for word)', async () => {
    const history: History = [];
    const first = await turn('I need DB_ADMIN', history);
    expect(first.text).toMatch(/^There is no access named DB_ADMIN\./);
    const second = await turn('I need access to Jira', history);
    expect(second.text).not.toBe(first.text);
    expect(second.text).toMatch(/^None of the accesses open to your teams \(engineering\) fits "jira", so I am not proposing any\./);
    // The same after "fits nothing": the earlier target does not leak into the next request.
    const wiki: History = [];
    await turn('I need access to the wiki', wiki);
    expect((await turn('I need access to Jira', wiki)).text).toContain('fits "jira"');
    // An answer with a catalog name after "which one do you need?" still resolves.
    const named = await turn('DB_READ_DEV', history);
    expect(named.proposal).toMatchObject({ tool: 'grant_access_to_user', input: { access_name: 'DB_READ_DEV' } });
  });

  it('a write access states its renewal period before the approval', async () => {
    const result = await turn('I need to write documents', [], 'bob_wilson');
    expect(result.proposal?.input).toMatchObject({ access_name: 'WRITE_DOCUMENTS' });
    expect(result.text).toContain('renewal period of 90 days');
  });

  it('lists what the person holds', async () => {
    const result = await turn('What accesses do I have?', []);
    expect(result.steps.map((s) => s.toolName)).toEqual(['get_user_accesses']);
    expect(result.text).toContain('- READ_DOCUMENTS: View documents in the system');
  });

  it('a discovery question after a clarifying question is answered as discovery', async () => {
    const history: History = [];
    await turn('I need database access', history);
    const result = await turn('What accesses are available for the finance team?', history);
    expect(result.text).toMatch(/^For the finance team, here are the available accesses:\n- BILLING_ADMIN/);
    expect(result.proposal).toBeUndefined();
  });

  it.each([
    ['Can I get read access to the staging database?', 'DB_READ_STAGING'],
    ['I need to deploy to production', 'DEPLOY_PROD'],
    ['please give me VPN_ACCESS', 'VPN_ACCESS'],
  ])('maps "%s" to %s', async (text, name) => {
    const result = await turn(text, [], 'jane_smith');
    expect(result.proposal?.input).toMatchObject({ access_name: name });
  });

  it('reports a rejected or failed grant honestly', () => {
    const steps: Step[] = [
      { toolName: 'grant_access_to_user', input: { access_name: 'DB_WRITE_PROD' }, output: { denied: true, reason: 'no' }, isError: true },
    ];
    const base = { userText: 'I need DB_WRITE_PROD', history: [], tools: [], system: '' };
    expect(accessInterpreter.next({ ...base, steps })).toEqual({ text: 'Okay, I did not grant DB_WRITE_PROD access.' });
    const failed: Step[] = [
      {
        toolName: 'grant_access_to_user',
        input: { access_name: 'X' },
        output: { success: false, message: 'Backend API unavailable', detail: 'Backend API is not responding' },
        isError: false,
      },
    ];
    expect(accessInterpreter.next({ ...base, steps: failed })).toEqual({
      text: 'I could not grant X access: Backend API unavailable (Backend API is not responding).',
    });
  });

  it('says when the catalog cannot be read', () => {
    const steps: Step[] = [
      { toolName: 'list_available_accesses', input: {}, output: { accesses: [], error: 'Backend API is unavailable' }, isError: false },
    ];
    expect(accessInterpreter.next({ userText: 'I need database access', steps, history: [], tools: [], system: '' })).toEqual({
      text: 'I could not read the access catalog: Backend API is unavailable',
    });
  });

  it('"I need access to the Kubernetes admin console" from an engineering user proposes nothing, finance least of all', async () => {
    const result = await turn('I need access to the Kubernetes admin console', []);
    expect(result.proposal).toBeUndefined();
    expect(result.text).toMatch(/^None of the accesses open to your teams \(engineering\) fits "kubernetes admin console"/);
    expect(result.text).not.toContain('BILLING_ADMIN');
    const nearest = result.text!.slice(result.text!.indexOf('The nearest ones are: '));
    expect(nearest).toMatch(/^The nearest ones are: [A-Z]+_[A-Z_]+ \(/);
  });

  it('an access of another team, asked for by name, is refused with the eligible nearest ones', async () => {
    const result = await turn('I need BILLING_ADMIN', []);
    expect(result.proposal).toBeUndefined();
    expect(result.text).toMatch(/^BILLING_ADMIN is for the finance team\(s\) and you are in engineering, so I cannot request it\./);
    expect(result.text!.split('the nearest are: ')[1]).not.toContain('BILLING_ADMIN');
    const fiona = await turn('I need BILLING_ADMIN', [], 'fiona_finance');
    expect(fiona.proposal?.input).toMatchObject({ access_name: 'BILLING_ADMIN' });
  });

  it('a request for fewer days than the maximum, with a reason, carries both', async () => {
    const result = await turn('I need DB_WRITE_PROD for 2 days because incident 4711 needs a data fix', [], 'jane_smith');
    expect(result.proposal?.input).toEqual({
      access_name: 'DB_WRITE_PROD',
      username: 'jane_smith',
      duration_days: 2,
      reason: 'incident 4711 needs a data fix',
    });
    expect(result.text).toContain('Would you like me to grant it for 2 days?');
    const tooLong = await turn('I need DB_WRITE_PROD for 3 weeks', [], 'jane_smith');
    expect(tooLong.proposal).toBeUndefined();
    expect(tooLong.text).toBe('DB_WRITE_PROD lasts at most 14 days. How many days (14 or fewer) do you need it for?');
  });

  it('revoke: finds the held grant and proposes revoke_access_from_user; nothing held, nothing proposed', async () => {
    const none = await turn('Please revoke DB_READ_DEV', [], 'bob_wilson');
    expect(none.proposal).toBeUndefined();
    const granted = await turn('I need DB_READ_DEV', [], 'bob_wilson');
    await approve('I need DB_READ_DEV', [], granted.steps, granted.proposal!);
    const result = await turn('Please revoke DB_READ_DEV', [], 'bob_wilson');
    expect(result.text).toBe('You hold DB_READ_DEV. Would you like me to revoke it?');
    expect(result.proposal).toEqual({ tool: 'revoke_access_from_user', input: { access_name: 'DB_READ_DEV', username: 'bob_wilson' } });
    const done = await approve('Please revoke DB_READ_DEV', [], result.steps, result.proposal!);
    expect(done.text).toBe("I've revoked your DB_READ_DEV access.");
    const notRevoke = await turn('I need write access to remove old documents', [], 'bob_wilson');
    expect(notRevoke.proposal?.tool).toBe('grant_access_to_user');
  });
});
