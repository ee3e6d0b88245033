import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
} from '@ai-sdk/provider';
import type { InterpreterAction, InterpreterRules, InterpreterTurn } from './interpreter-rules.ts';
import { readInterpreterTurn } from './prompt-reader.ts';

const CORE_HELP = [
  '/help                      this list',
  '/tools                     the tools offered right now',
  '/call TOOL {json}          call one of those tools with JSON arguments',
  '/ask QUESTION              have the agent ask you QUESTION with Yes / No / Skip buttons',
];

/**
 * Help lines ("command   what it does", continued on indented lines) as a Markdown list, so an
 * interface that renders Markdown shows commands as code instead of columns padded with spaces.
 */
function helpList(lines: readonly string[]): string {
  const items: string[] = [];
  for (const line of lines) {
    const entry = /^(\S.*?)\s{2,}(\S.*)$/.exec(line);
    if (entry) items.push(`- \`${entry[1]}\` — ${entry[2]}`);
    else if (/^\s/.test(line) && items.length > 0) items[items.length - 1] += ` ${line.trim()}`;
    else items.push(`- \`${line.trim()}\``);
  }
  return items.join('\n');
}

function describeResult(step: InterpreterTurn['steps'][number]): string {
  const body = typeof step.output === 'string' ? step.output : JSON.stringify(step.output, null, 2);
  return `${step.isError ? 'The call failed' : 'Result'} of ${step.toolName}:\n${body}`;
}

/** The command language every agent understands offline, before its own rules. */
export function coreCommand(turn: InterpreterTurn, rules: InterpreterRules | undefined): InterpreterAction | undefined {
  const text = turn.userText.trim();
  if (!text.startsWith('/')) return undefined;
  if (turn.steps.length > 0) return { text: describeResult(turn.steps[turn.steps.length - 1]!) };
  const [command = '', ...rest] = text.split(/\s+/);
  const argument = text.slice(command.length).trim();
  switch (command) {
    case '/help':
      return { text: `Commands I understand without a language model:\n\n${helpList([...CORE_HELP, ...(rules?.help ?? [])])}` };
    case '/tools':
      return {
        text: turn.tools.length ? turn.tools.map((t) => `- ${t.name}: ${t.description}`).join('\n') : 'No tools are offered in this phase.',
      };
    case '/call': {
      const toolName = rest[0];
      if (!toolName) return { text: 'Usage: /call TOOL {json}' };
      const json = argument.slice(toolName.length).trim();
      let input: Record<string, unknown> = {};
      if (json) {
        try {
          input = JSON.parse(json) as Record<string, unknown>;
        } catch {
          return { text: `The arguments are not valid JSON: ${json}` };
        }
      }
      return { toolCalls: [{ toolName, input }] };
    }
    case '/ask':
      return argument
        ? { toolCalls: [{ toolName: 'request_human_input', input: { question: argument } }] }
        : { text: 'Usage: /ask QUESTION' };
    default:
      return { text: `Unknown command ${command}. Try /help.` };
  }
}

const zeroUsage: LanguageModelV4GenerateResult['usage'] = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};

/**
 * The offline interpreter: a deterministic `LanguageModel` that reads the core command language
 * and the agent's intent rules and emits the same tool calls a model would. No network, no key.
 */
export function createOfflineModel(agentName: string, rules?: InterpreterRules): LanguageModelV4 {
  let counter = 0;
  const decide = (options: LanguageModelV4CallOptions): LanguageModelV4Content[] => {
    const turn = readInterpreterTurn(options);
    const action = coreCommand(turn, rules) ??
      rules?.next(turn) ?? { text: 'I could not map that to anything I can do offline. Type /help to see the commands I understand.' };
    if ('toolCalls' in action) {
      const content: LanguageModelV4Content[] = action.text ? [{ type: 'text', text: action.text }] : [];
      for (const call of action.toolCalls) {
        counter += 1;
        content.push({ type: 'tool-call', toolCallId: `offline-${counter}`, toolName: call.toolName, input: JSON.stringify(call.input) });
      }
      return content;
    }
    return [{ type: 'text', text: action.text }];
  };
  return {
    specificationVersion: 'v4',
    provider: 'opsgate.offline',
    modelId: `offline-interpreter:${agentName}`,
    supportedUrls: {},
    async doGenerate(options) {
      const content = decide(options);
      const hasCalls = content.some((part) => part.type === 'tool-call');
      return { content, finishReason: { unified: hasCalls ? 'tool-calls' : 'stop', raw: undefined }, usage: zeroUsage, warnings: [] };
    },
    async doStream(options) {
      const content = decide(options);
      const hasCalls = content.some((part) => part.type === 'tool-call');
      const parts: LanguageModelV4StreamPart[] = [{ type: 'stream-start', warnings: [] }];
      for (const part of content) {
        if (part.type === 'text') {
          parts.push({ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: part.text }, { type: 'text-end', id: 't' });
        } else if (part.type === 'tool-call') {
          parts.push(part);
        }
      }
      parts.push({ type: 'finish', finishReason: { unified: hasCalls ? 'tool-calls' : 'stop', raw: undefined }, usage: zeroUsage });
      return {
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  };
}
