import type { LanguageModelV4CallOptions, LanguageModelV4ToolResultOutput } from '@ai-sdk/provider';
import type { InterpreterTurn } from './interpreter-rules.ts';

function resultValue(output: LanguageModelV4ToolResultOutput): { value: unknown; isError: boolean } {
  switch (output.type) {
    case 'json':
    case 'text':
      return { value: output.value, isError: false };
    case 'error-json':
    case 'error-text':
      return { value: output.value, isError: true };
    case 'execution-denied':
      return { value: { denied: true, reason: output.reason ?? '' }, isError: true };
    default:
      return { value: null, isError: false };
  }
}

/** Reads a model prompt back into what the interpreter's rules decide on. */
export function readInterpreterTurn(options: LanguageModelV4CallOptions): InterpreterTurn {
  const prompt = options.prompt;
  let lastUser = -1;
  for (let i = prompt.length - 1; i >= 0; i -= 1) {
    if (prompt[i]!.role === 'user') {
      lastUser = i;
      break;
    }
  }
  const textOf = (index: number): string => {
    const message = prompt[index]!;
    if (message.role === 'system') return message.content;
    return message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
  };
  const system = prompt
    .filter((m) => m.role === 'system')
    .map((m) => (m.role === 'system' ? m.content : ''))
    .join('\n\n');
  const history: Array<{ role: 'user' | 'assistant'; text: string }> = [];
  for (let i = 0; i < Math.max(lastUser, 0); i += 1) {
    const role = prompt[i]!.role;
    if (role !== 'user' && role !== 'assistant') continue;
    const text = textOf(i);
    if (text) history.push({ role, text });
  }
  const calls = new Map<string, { toolName: string; input: unknown }>();
  const steps: Array<{ toolName: string; input: unknown; output: unknown; isError: boolean }> = [];
  for (let i = lastUser + 1; i < prompt.length; i += 1) {
    const message = prompt[i]!;
    if (message.role === 'assistant') {
      for (const part of message.content)
        if (part.type === 'tool-call') calls.set(part.toolCallId, { toolName: part.toolName, input: part.input });
    } else if (message.role === 'tool') {
      for (const part of message.content) {
        if (part.type !== 'tool-result') continue;
        const call = calls.get(part.toolCallId);
        const { value, isError } = resultValue(part.output);
        steps.push({ toolName: part.toolName, input: call?.input ?? null, output: value, isError });
      }
    }
  }
  const tools = (options.tools ?? [])
    .filter((t) => t.type === 'function')
    .map((t) => ({ name: t.name, description: t.type === 'function' ? (t.description ?? '') : '' }));
  return { userText: lastUser >= 0 ? textOf(lastUser) : '', steps, history, tools, system };
}
