import type { LanguageModelV4FunctionTool } from '@ai-sdk/provider';
import { z } from 'zod';
import type { AnyToolDefinition } from '../tools/index.ts';

const cache = new WeakMap<AnyToolDefinition, LanguageModelV4FunctionTool>();

/**
 * The tool as a model sees it. Identity fields stay in the schema (the specs name them) but are
 * not required: opsgate fills them from the session.
 */
export function toModelTool(tool: AnyToolDefinition): LanguageModelV4FunctionTool {
  const cached = cache.get(tool);
  if (cached) return cached;
  const schema = z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete schema.$schema;
  const bound = new Set([tool.identity?.userId, tool.identity?.username].filter((f): f is string => typeof f === 'string'));
  if (bound.size > 0 && Array.isArray(schema.required)) {
    schema.required = (schema.required as string[]).filter((field) => !bound.has(field));
  }
  const modelTool: LanguageModelV4FunctionTool = {
    type: 'function',
    name: tool.name,
    description:
      tool.mutability === 'mutable' ? `${tool.description} (Changes state: a person approves it before it runs.)` : tool.description,
    inputSchema: schema as LanguageModelV4FunctionTool['inputSchema'],
  };
  cache.set(tool, modelTool);
  return modelTool;
}
