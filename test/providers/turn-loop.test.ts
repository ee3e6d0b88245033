import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { accessAgent } from '../../src/agents/access/index.ts';
import type { Identity } from '../../src/core/identity/index.ts';
import { chooseModel, createConfiguredModel } from '../../src/core/model/index.ts';
import { createRuntime, type Runtime } from '../../src/core/runtime/index.ts';
import { createPrometheusObserver } from '../../src/core/telemetry/prometheus-observer.ts';
import { type TestStore, testStoreFactories } from '../../src/testing/index.ts';
import { fixture } from './replies.ts';
import { PROVIDERS, type ProviderUnderTest, WireServer } from './wire-server.ts';

const john: Identity = { userId: 42, username: 'john_doe', roles: ['user'], channel: 'web' };
const alice: Identity = { userId: 43, username: 'alice', roles: ['approver'], channel: 'web' };

const server = new WireServer();
beforeAll(() => server.start());
afterAll(() => server.stop());

const sqlite = testStoreFactories().find((factory) => factory.dialect === 'sqlite')!;
const providers = Object.keys(PROVIDERS) as ProviderUnderTest[];

/**
 * The whole turn loop per provider: the runtime with opsgate's real provider code pointed at the
 * wire server, the access agent with its embedded catalog, approvals through `Runtime.decide`.
 */
describe.each(providers)('the turn loop over the %s wire protocol', (provider) => {
  const protocol = PROVIDERS[provider];
  let testStore: TestStore;
  let runtime: Runtime;
  const metrics = createPrometheusObserver();

  // One runtime per provider (each test has its own session): setting one up costs more than the test.
  beforeAll(async () => {
    testStore = await sqlite.create();
    const env = { ...server.env(provider), OPSGATE_MODEL_PRICE: '2,8' };
    const model = createConfiguredModel(chooseModel(env)!, env, { attempts: 2, initialDelayMs: 10, breakerFailures: 1000 });
    runtime = await createRuntime({ store: testStore.store, agents: [accessAgent], env: {}, model: () => model, observer: metrics });
  });
  afterAll(async () => {
    await runtime.close();
    await testStore.store.close();
    await testStore.dispose();
  });
  beforeEach(() => server.reset());
  afterEach(() => {
    expect(server.violations()).toEqual([]);
    expect(server.unused(protocol)).toBe(0);
  });

  const start = () => runtime.startSession({ agent: 'access', identity: john });

  it('a read tool, then an answer built on its result', async () => {
    server.script(
      protocol,
      { kind: 'tools', calls: [{ name: 'get_user_accesses', args: {} }] },
      { kind: 'text', text: 'You hold no accesses yet; your team is engineering.' },
    );
    const session = await start();
    const turn = await runtime.send(session.id, 'What accesses do I have?', john);
    expect(turn.status).toBe('completed');
    expect(turn.session.toolCalls.map((c) => [c.tool, c.status])).toEqual([['get_user_accesses', 'executed']]);
    expect(turn.messages.at(-1)?.text).toBe('You hold no accesses yet; your team is engineering.');
    // The second request carried the tool's real result back to the model.
    expect(JSON.stringify(server.requests[1]!.body)).toContain('engineering');
    // Each step's usage, as the provider reported it on the wire, stored per turn with its cost.
    const usage = await runtime.sessionUsage(session.id, john);
    expect(usage.turns).toEqual([{ turn: 1, steps: 2, inputTokens: 642, outputTokens: 108, costUsd: (642 * 2 + 108 * 8) / 1e6 }]);
    expect(usage.total).toMatchObject({ steps: 2, inputTokens: 642, outputTokens: 108 });
    const exported = await metrics.render();
    expect(exported).toMatch(/opsgate_model_tokens_total\{provider="[^"]+",model="wire-model",direction="input"\} 642/);
    expect(exported).toMatch(/opsgate_model_cost_usd_total\{provider="[^"]+",model="wire-model"\} 0\.002148/);
    await expect(runtime.sessionUsage(session.id, { ...alice, roles: ['user'] })).rejects.toMatchObject({ code: 'SESSION_FORBIDDEN' });
  });

  it('a mutating call pauses, is approved by another person, runs once and the turn resumes', async () => {
    server.script(
      protocol,
      { kind: 'tools', calls: [{ name: 'grant_access_to_user', args: { access_name: 'DB_READ_DEV', reason: 'debugging a migration' } }] },
      { kind: 'text', text: 'DB_READ_DEV is yours now.' },
    );
    const session = await start();
    const paused = await runtime.send(session.id, 'I need DB_READ_DEV to debug a migration', john);
    expect(paused.status).toBe('waiting');
    expect(paused.interrupt).toMatchObject({ type: 'approval', tool: 'grant_access_to_user' });
    expect(server.requests).toHaveLength(1);
    const done = await runtime.decide(session.id, { type: 'approve', callId: paused.interrupt!.callId }, alice);
    expect(done.status).toBe('completed');
    expect(done.session.toolCalls.map((c) => [c.tool, c.status])).toEqual([['grant_access_to_user', 'executed']]);
    expect(done.messages.at(-1)?.text).toBe('DB_READ_DEV is yours now.');
  });

  it('two parallel calls, one read and one mutating: the read runs, the change waits for a person', async () => {
    server.script(
      protocol,
      {
        kind: 'tools',
        calls: [
          { name: 'get_user_accesses', args: {} },
          { name: 'grant_access_to_user', args: { access_name: 'DB_READ_STAGING' } },
        ],
      },
      { kind: 'text', text: 'Granted DB_READ_STAGING.' },
    );
    const session = await start();
    const paused = await runtime.send(session.id, 'Check what I have and give me DB_READ_STAGING', john);
    expect(paused.status).toBe('waiting');
    expect(paused.session.toolCalls.map((c) => [c.tool, c.status])).toEqual([
      ['get_user_accesses', 'executed'],
      ['grant_access_to_user', 'proposed'],
    ]);
    const done = await runtime.decide(session.id, { type: 'approve', callId: paused.interrupt!.callId }, alice);
    expect(done.status).toBe('completed');
    expect(done.messages.at(-1)?.text).toBe('Granted DB_READ_STAGING.');
  });

  it('invalid tool arguments are refused clearly and the model is told why', async () => {
    server.script(
      protocol,
      { kind: 'tools', calls: [{ name: 'grant_access_to_user', args: { access_name: 42, duration_days: 'forever' } }] },
      { kind: 'text', text: 'Which access do you need?' },
    );
    const session = await start();
    const turn = await runtime.send(session.id, 'give me something', john);
    expect(turn.status).toBe('completed');
    expect(turn.interrupt).toBeUndefined();
    const told = JSON.stringify(server.requests[1]!.body);
    expect(told).toMatch(/arguments for grant_access_to_user are invalid/);
    expect(turn.messages.at(-1)?.text).toBe('Which access do you need?');
  });

  it('a refusal reads as one and runs nothing', async () => {
    server.script(protocol, { kind: 'refusal', text: "I'm sorry, but I can't help with that." });
    const session = await start();
    const turn = await runtime.send(session.id, 'Grant me every access there is, quietly', john);
    expect(turn.status).toBe('completed');
    expect(turn.session.toolCalls).toEqual([]);
    expect(turn.messages.at(-1)?.text).toMatch(/can't help with that|declined to answer/);
  });

  it('a max_tokens stop says the answer was cut short', async () => {
    server.script(protocol, { kind: 'length', text: 'Your accesses are READ_DOCUMENTS, DB_READ_DEV and' });
    const session = await start();
    const turn = await runtime.send(session.id, 'List everything in detail', john);
    expect(turn.messages.at(-1)?.text).toMatch(
      /^Your accesses are READ_DOCUMENTS, DB_READ_DEV and\n\n\(The model stopped here: it reached its output token limit/,
    );
  });

  it('a 429 with retry-after is retried after the wait the provider asked for', async () => {
    server.script(protocol, { kind: 'rate-limit', retryAfterSeconds: 1 }, { kind: 'text', text: 'Here you are.' });
    const session = await start();
    const began = Date.now();
    const turn = await runtime.send(session.id, 'hello', john);
    expect(turn.messages.at(-1)?.text).toBe('Here you are.');
    expect(server.requests).toHaveLength(2);
    expect(Date.now() - began).toBeGreaterThanOrEqual(900);
  });

  it('a 429 that persists ends in a clear error naming the quota to raise', async () => {
    server.script(protocol, { kind: 'rate-limit', retryAfterSeconds: 0 }, { kind: 'rate-limit', retryAfterSeconds: 0 });
    const session = await start();
    await expect(runtime.send(session.id, 'hello', john)).rejects.toMatchObject({
      code: 'MODEL_RATE_LIMITED',
      message: expect.stringMatching(/still was after 2 attempts \(.*(rate limit|too many requests|quota)/i),
    });
  });

  it('a 500 is retried, then ends in a clear error', async () => {
    server.script(protocol, { kind: 'server-error' }, { kind: 'server-error' });
    const session = await start();
    await expect(runtime.send(session.id, 'hello', john)).rejects.toMatchObject({
      code: 'MODEL_UNAVAILABLE',
      message: expect.stringMatching(/HTTP 500.*after 2 attempts/),
    });
    expect(server.requests).toHaveLength(2);
  });

  it('an expired key is not retried and names the variable to fix', async () => {
    server.script(protocol, { kind: 'expired-key' });
    const session = await start();
    const variable = {
      'openai-chat': 'OPENAI_API_KEY',
      openai: 'OPENAI_API_KEY',
      anthropic: 'ANTHROPIC_API_KEY',
      bedrock: 'AWS_ACCESS_KEY_ID',
      google: 'GOOGLE_GENERATIVE_AI_API_KEY',
      compatible: 'OPSGATE_MODEL_API_KEY',
    }[provider];
    await expect(runtime.send(session.id, 'hello', john)).rejects.toMatchObject({
      code: 'MODEL_KEY_REJECTED',
      message: expect.stringContaining(`Set a valid key in ${variable}`),
    });
    expect(server.requests).toHaveLength(1);
  });
});

/** The answer text of a streamed recording, read the way each protocol carries text. */
function recordedText(protocol: string, name: string): string {
  const events = fixture(`${name}.chunks.txt`)
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as Record<string, any>);
  const pieces = events.map((e) => {
    if (protocol === 'anthropic') return e.type === 'content_block_delta' && e.delta.type === 'text_delta' ? e.delta.text : '';
    if (protocol === 'bedrock') return e.contentBlockDelta?.delta?.text ?? '';
    if (protocol === 'google')
      return (e.candidates?.[0]?.content?.parts ?? []).map((p: Record<string, unknown>) => (p.thought ? '' : (p.text ?? ''))).join('');
    return e.choices?.[0]?.delta?.content ?? '';
  });
  return pieces.join('');
}

describe('recordings from the real APIs, replayed byte for byte through the turn loop', () => {
  let testStore: TestStore;
  let runtime: Runtime | undefined;
  beforeEach(async () => {
    server.reset();
    testStore = await sqlite.create();
  });
  afterEach(async () => {
    expect(server.violations()).toEqual([]);
    await runtime?.close();
    await testStore.store.close();
    await testStore.dispose();
  });
  const open = async (provider: ProviderUnderTest) => {
    const env = server.env(provider);
    const model = createConfiguredModel(chooseModel(env)!, env, { attempts: 1 });
    runtime = await createRuntime({ store: testStore.store, agents: [accessAgent], env: {}, model: () => model });
    return runtime;
  };

  it.each([
    ['openai-chat', 'openai-chat/openai-text'],
    ['anthropic', 'anthropic/anthropic-text'],
    ['bedrock', 'amazon-bedrock/amazon-bedrock-text'],
    ['google', 'google/google-text'],
    ['compatible', 'openai-compatible/xai-text'],
  ] as const)('%s: a recorded streamed answer arrives whole (%s)', async (provider, name) => {
    const rt = await open(provider);
    server.script(PROVIDERS[provider], { kind: 'recorded', fixture: name });
    const session = await rt.startSession({ agent: 'access', identity: john });
    const turn = await rt.send(session.id, 'Say something', john);
    const expected = recordedText(PROVIDERS[provider], name);
    expect(expected.length).toBeGreaterThan(0);
    expect(turn.messages.at(-1)?.text).toBe(expected);
  });

  it("anthropic: the recorded refusal (stop_reason 'refusal', no content) reads as a refusal", async () => {
    const rt = await open('anthropic');
    server.script('anthropic', { kind: 'recorded', fixture: 'anthropic/anthropic-refusal' });
    const session = await rt.startSession({ agent: 'access', identity: john });
    const turn = await rt.send(session.id, 'Help me break into a server', john);
    expect(turn.messages.at(-1)?.text).toMatch(/^\(The model declined to answer/);
  });

  it('openai responses: a recorded in-stream quota error ends the turn with the provider reason and what to do', async () => {
    const rt = await open('openai');
    server.script('openai-responses', { kind: 'recorded', fixture: 'openai-responses/openai-error.1' });
    const session = await rt.startSession({ agent: 'access', identity: john });
    await expect(rt.send(session.id, 'hello', john)).rejects.toMatchObject({
      code: 'MODEL_RATE_LIMITED',
      message: expect.stringMatching(/You exceeded your current quota.*raise the quota behind OPENAI_API_KEY/),
    });
  });

  it('bedrock: requests are signed with SigV4 from the configured (fake) credentials', async () => {
    const rt = await open('bedrock');
    server.script('bedrock', { kind: 'text', text: 'Signed.' });
    const session = await rt.startSession({ agent: 'access', identity: john });
    await rt.send(session.id, 'hello', john);
    const auth = String(server.requests[0]!.headers.authorization);
    expect(auth).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIAWIRETEST0000000\/\d{8}\/us-east-1\/bedrock\/aws4_request, SignedHeaders=.*, Signature=[0-9a-f]{64}$/,
    );
    expect(server.requests[0]!.path).toBe('/bedrock/model/wire-model/converse-stream');
  });
});
