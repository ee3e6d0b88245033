import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4FunctionTool, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { z } from 'zod';
import type { AgentInfo } from '../../src/core/runtime/index.ts';
import { toModelTool } from '../../src/core/runtime/tool-schemas.ts';
import { defineTool } from '../../src/core/tools/index.ts';

/**
 * The tools of an agent exactly as the turn loop hands them to a provider: the schema from
 * `AgentInfo` (which is `toModelTool`'s), the description through `toModelTool` itself.
 */
export function modelToolsOf(agent: AgentInfo): LanguageModelV4FunctionTool[] {
  return agent.tools.map((tool) => {
    const shaped = toModelTool(
      defineTool({
        name: tool.name,
        description: tool.description,
        mutability: tool.mutability === 'mutable' ? 'mutable' : 'read-only',
        input: z.object({}),
        execute: async () => null,
      }),
    );
    return { ...shaped, inputSchema: tool.inputSchema as LanguageModelV4FunctionTool['inputSchema'] };
  });
}

/** One model step the way the turn loop asks it, with a system prompt, a question and the tools. */
export function stepOptions(tools: LanguageModelV4FunctionTool[], question = 'What can you do?'): LanguageModelV4CallOptions {
  return {
    prompt: [
      { role: 'system', content: 'You are an opsgate agent.' },
      { role: 'user', content: [{ type: 'text', text: question }] },
    ],
    tools,
    toolChoice: { type: 'auto' },
  };
}

/** Streams a step to its end and returns its parts; an `error` part is thrown. */
export async function streamStep(model: LanguageModelV4, options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamPart[]> {
  const { stream } = await model.doStream(options);
  const parts: LanguageModelV4StreamPart[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (value.type === 'error') throw value.error;
    parts.push(value);
  }
  return parts;
}
