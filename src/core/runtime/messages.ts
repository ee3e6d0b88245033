import type { LanguageModelV4Message, LanguageModelV4ToolResultOutput } from '@ai-sdk/provider';
import type { ChatMessage, ToolCallStatus } from './types.ts';

export interface StoredMessage {
  readonly seq: number;
  readonly message: LanguageModelV4Message;
  readonly createdAt: string;
}

function outputValue(output: LanguageModelV4ToolResultOutput): { value: unknown; isError: boolean } {
  switch (output.type) {
    case 'text':
    case 'json':
      return { value: output.value, isError: false };
    case 'error-text':
    case 'error-json':
      return { value: output.value, isError: true };
    case 'execution-denied':
      return { value: output.reason ?? 'denied', isError: true };
    default:
      return { value: null, isError: false };
  }
}

/** What a person sees of the stored model history. */
export function toChatMessages(stored: readonly StoredMessage[], statuses: ReadonlyMap<string, ToolCallStatus>): ChatMessage[] {
  const result: ChatMessage[] = [];
  for (const { seq, message, createdAt } of stored) {
    if (message.role === 'system') continue;
    if (message.role === 'user') {
      const text = message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
      result.push({ seq, role: 'user', text, createdAt });
    } else if (message.role === 'assistant') {
      let text = '';
      const toolCalls: Array<{ callId: string; tool: string; args: unknown; status?: ToolCallStatus }> = [];
      for (const part of message.content) {
        if (part.type === 'text') text += part.text;
        if (part.type === 'tool-call') {
          const status = statuses.get(part.toolCallId);
          toolCalls.push({ callId: part.toolCallId, tool: part.toolName, args: part.input, ...(status ? { status } : {}) });
        }
      }
      result.push({ seq, role: 'assistant', text, ...(toolCalls.length ? { toolCalls } : {}), createdAt });
    } else {
      for (const part of message.content) {
        if (part.type !== 'tool-result') continue;
        const { value, isError } = outputValue(part.output);
        result.push({
          seq,
          role: 'tool',
          text: typeof value === 'string' ? value : JSON.stringify(value),
          toolResult: { callId: part.toolCallId, tool: part.toolName, output: value, isError },
          createdAt,
        });
      }
    }
  }
  return result;
}
