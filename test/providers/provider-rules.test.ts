import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LanguageModelV4FunctionTool } from '@ai-sdk/provider';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { agents as registeredAgents } from '../../src/agents/index.ts';
import { openOpsgate } from '../../src/app/open-opsgate.ts';
import { chooseModel, createConfiguredModel } from '../../src/core/model/index.ts';
import type { AgentInfo } from '../../src/core/runtime/index.ts';
import { modelToolsOf, stepOptions, streamStep } from './provider-requests.ts';
import { checkRequest, strictModeViolations } from './request-rules.ts';
import { PROVIDERS, type ProviderUnderTest, WireServer } from './wire-server.ts';

const server = new WireServer();
let agents: AgentInfo[] = [];
let dataDir = '';

beforeAll(async () => {
  await server.start();
  dataDir = mkdtempSync(join(tmpdir(), 'opsgate-wire-rules-'));
  const opsgate = await openOpsgate({ env: {}, dataDir });
  try {
    agents = opsgate.runtime.agents();
  } finally {
    await opsgate.close();
  }
});
afterAll(async () => {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const providers = Object.keys(PROVIDERS) as ProviderUnderTest[];
const modelFor = (provider: ProviderUnderTest) => {
  const env = server.env(provider);
  return createConfiguredModel(chooseModel(env)!, env, { attempts: 1 });
};

describe.each(providers)('every tool of every agent, as the %s provider sends it', (provider) => {
  beforeEach(() => {
    server.reset();
  });
  it('is accepted by the provider rules, streamed and not', async () => {
    expect(agents.map((a) => a.name).sort()).toEqual(registeredAgents.map((a) => a.name).sort());
    const model = modelFor(provider);
    for (const agent of agents) {
      const tools = modelToolsOf(agent);
      expect(tools.length).toBeGreaterThan(0);
      const before = server.requests.length;
      server.script(PROVIDERS[provider], { kind: 'text', text: `Ready with ${tools.length} tools.` });
      const parts = await streamStep(model, stepOptions(tools));
      expect(
        parts
          .filter((p) => p.type === 'text-delta')
          .map((p) => (p as { delta: string }).delta)
          .join(''),
      ).toBe(`Ready with ${tools.length} tools.`);
      server.script(PROVIDERS[provider], { kind: 'text', text: 'Ready.' });
      const generated = await model.doGenerate(stepOptions(tools));
      expect(generated.content).toMatchObject([{ type: 'text', text: 'Ready.' }]);
      const sent = server.requests.slice(before);
      expect(server.violations()).toEqual([]);
      expect(sent.map((r) => r.stream)).toEqual([true, false]);
      expect(server.violations()).toEqual([]);
      // The provider really carried every tool: the names in the body are the agent's names.
      expect(toolNamesIn(PROVIDERS[provider], sent[0]!.body).sort()).toEqual(tools.map((t) => t.name).sort());
    }
  });

  it('a request that breaks a rule fails with the rule named', async () => {
    const model = modelFor(provider);
    const broken: LanguageModelV4FunctionTool = {
      type: 'function',
      name: 'restart service!',
      description: 'Restarts a service.',
      inputSchema: { type: 'object', properties: { name: { type: 'string' } } },
    };
    if (provider === 'google') broken.inputSchema = { type: 'object', properties: {} };
    await expect(streamStep(model, stepOptions([broken]))).rejects.toMatchObject({
      code: 'MODEL_REQUEST_REFUSED',
      message: expect.stringContaining('tool name "restart service!"'),
    });
    expect(server.violations()).toEqual([expect.stringMatching(/ name .*\[a-zA-Z.*: tool name "restart service!"$/)]);
  });
});

function toolNamesIn(protocol: string, body: Record<string, unknown>): string[] {
  const list = (value: unknown) => (Array.isArray(value) ? (value as Array<Record<string, unknown>>) : []);
  switch (protocol) {
    case 'openai-chat':
    case 'compatible':
      return list(body.tools).map((t) => String((t.function as Record<string, unknown>).name));
    case 'openai-responses':
    case 'anthropic':
      return list(body.tools).map((t) => String(t.name));
    case 'bedrock':
      return list((body.toolConfig as Record<string, unknown>).tools).map((t) => String((t.toolSpec as Record<string, unknown>).name));
    default:
      return list(body.tools).flatMap((t) => list(t.functionDeclarations).map((d) => String(d.name)));
  }
}

describe('the rules themselves', () => {
  it('name what they catch: Bedrock names, Gemini keywords, Anthropic schema type, OpenAI strict mode, OpenAPI shape', () => {
    expect(
      checkRequest('bedrock', {
        messages: [{ role: 'user', content: [{ text: 'hi' }] }],
        toolConfig: { tools: [{ toolSpec: { name: 'get-pods', description: 'd', inputSchema: { json: { type: 'object' } } } }] },
      }).map((v) => v.rule),
    ).toEqual(['Bedrock ToolSpecification name [a-zA-Z][a-zA-Z0-9_]* (1 to 64)']);
    expect(
      checkRequest('google', {
        contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
        tools: [{ functionDeclarations: [{ name: 'f', description: 'd', parameters: { type: 'object', additionalProperties: false } }] }],
      }).map((v) => `${v.rule} ${v.detail}`),
    ).toEqual(['Gemini Schema (OpenAPI subset): unsupported field f #: "additionalProperties"']);
    expect(
      checkRequest('anthropic', {
        model: 'm',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'hi' }],
        tools: [{ name: 'f', description: 'd', input_schema: { type: 'string' } }],
      }).map((v) => v.rule),
    ).toEqual(['anthropic: tool input schema has type "object"']);
    expect(strictModeViolations('f', { type: 'object', properties: { a: { type: 'string' } } }).map((v) => v.detail)).toEqual([
      'f #: additionalProperties must be false',
      'f #: property "a" must be listed in required',
    ]);
    expect(checkRequest('openai-chat', { model: 'gpt-4.1', messages: 'hello' }).map((v) => v.rule)).toContain(
      'openai-openapi CreateChatCompletionRequest',
    );
    expect(
      checkRequest('anthropic', {
        model: 'm',
        max_tokens: 10,
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'f', input: {} }] },
          { role: 'user', content: 'next' },
        ],
      }).map((v) => v.rule),
    ).toEqual(['Anthropic: tool_use ids must have tool_result blocks immediately after']);
  });
});
