import { readFileSync } from 'node:fs';
import { bedrockEvent } from './event-stream.ts';
import type { Protocol } from './request-rules.ts';

/** A tool call the scripted model makes. `raw` sends these exact argument bytes (e.g. broken JSON). */
export interface ScriptedCall {
  readonly name: string;
  readonly args?: Readonly<Record<string, unknown>>;
  readonly raw?: string;
}

export interface Usage {
  readonly input: number;
  readonly output: number;
}

/** What the server answers next; rendered in each protocol's own format, streamed or not. */
export type Reply =
  | { readonly kind: 'text'; readonly text: string; readonly usage?: Usage }
  | { readonly kind: 'tools'; readonly calls: readonly ScriptedCall[]; readonly text?: string; readonly usage?: Usage }
  /** The output token limit hit mid-answer. */
  | { readonly kind: 'length'; readonly text: string; readonly usage?: Usage }
  /** The model declines (a recorded refusal where the provider's recordings have one). */
  | { readonly kind: 'refusal'; readonly text: string; readonly usage?: Usage }
  | { readonly kind: 'expired-key' }
  | { readonly kind: 'rate-limit'; readonly retryAfterSeconds: number }
  | { readonly kind: 'server-error' }
  /** A recording replayed byte for byte: `<dir>/<name>` under fixtures/, `.json` or `.chunks.txt` by the request. */
  | { readonly kind: 'recorded'; readonly fixture: string };

export interface WireResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

const DEFAULT_USAGE: Usage = { input: 321, output: 54 };

export function fixture(path: string): string {
  return readFileSync(new URL(`./fixtures/${path}`, import.meta.url), 'utf8');
}

/** Text in a few deltas, the way providers stream it. */
function pieces(text: string): string[] {
  if (text.length < 8) return [text];
  const third = Math.ceil(text.length / 3);
  return [text.slice(0, third), text.slice(third, 2 * third), text.slice(2 * third)];
}

function argsOf(call: ScriptedCall): string {
  return call.raw ?? JSON.stringify(call.args ?? {});
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): WireResponse {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: Buffer.from(JSON.stringify(body)) };
}

function sse(events: readonly unknown[], options: { done?: boolean; named?: boolean } = {}): WireResponse {
  const lines = events.map((event) => {
    const data = `data: ${JSON.stringify(event)}\n\n`;
    return options.named ? `event: ${(event as { type: string }).type}\n${data}` : data;
  });
  if (options.done) lines.push('data: [DONE]\n\n');
  return { status: 200, headers: { 'content-type': 'text/event-stream' }, body: Buffer.from(lines.join('')) };
}

function usageOf(reply: Reply): Usage {
  return ('usage' in reply && reply.usage) || DEFAULT_USAGE;
}

function textOf(reply: Reply): string {
  return reply.kind === 'text' || reply.kind === 'length' ? reply.text : reply.kind === 'tools' ? (reply.text ?? '') : '';
}

function callsOf(reply: Reply): readonly ScriptedCall[] {
  return reply.kind === 'tools' ? reply.calls : [];
}

// ---- OpenAI Chat Completions (also Ollama's and vLLM's /v1/chat/completions) -------------------

function openaiChat(reply: Reply, stream: boolean, model: string): WireResponse {
  const usage = usageOf(reply);
  const calls = callsOf(reply);
  const finish = reply.kind === 'length' ? 'length' : calls.length > 0 ? 'tool_calls' : 'stop';
  const refusal = reply.kind === 'refusal' ? reply.text : null;
  const text = textOf(reply);
  const envelope = { id: 'chatcmpl-opsgate-wire', created: 1770933892, model, system_fingerprint: 'fp_de604bd877' };
  const usageJson = { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output };
  const toolCalls = calls.map((call, i) => ({
    id: `call_${i}_wire`,
    type: 'function',
    function: { name: call.name, arguments: argsOf(call) },
  }));
  if (!stream) {
    return json(200, {
      ...envelope,
      object: 'chat.completion',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: text || null,
            refusal,
            annotations: [],
            ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
          },
          logprobs: null,
          finish_reason: finish,
        },
      ],
      usage: usageJson,
    });
  }
  const chunk = (delta: unknown, finishReason: string | null = null) => ({
    ...envelope,
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    usage: null,
  });
  const events: unknown[] = [chunk({ role: 'assistant', content: '', refusal: null })];
  for (const piece of text ? pieces(text) : []) events.push(chunk({ content: piece }));
  for (const piece of refusal ? pieces(refusal) : []) events.push(chunk({ refusal: piece }));
  for (const [index, call] of toolCalls.entries()) {
    events.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }));
    for (const piece of pieces(call.function.arguments)) events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  }
  events.push(chunk({}, finish));
  events.push({ ...envelope, object: 'chat.completion.chunk', choices: [], usage: usageJson });
  return sse(events, { done: true });
}

// ---- OpenAI Responses -------------------------------------------------------------------------

function openaiResponses(reply: Reply, stream: boolean, model: string): WireResponse {
  const usage = usageOf(reply);
  const text = textOf(reply);
  const incomplete = reply.kind === 'length' ? { reason: 'max_output_tokens' } : null;
  const message = (content: unknown[]) => ({ type: 'message', id: 'msg_wire', status: 'completed', role: 'assistant', content });
  const output: unknown[] = [];
  if (text) output.push(message([{ type: 'output_text', text, annotations: [], logprobs: [] }]));
  if (reply.kind === 'refusal') output.push(message([{ type: 'refusal', refusal: reply.text }]));
  for (const [i, call] of callsOf(reply).entries())
    output.push({
      type: 'function_call',
      id: `fc_${i}_wire`,
      call_id: `call_${i}_wire`,
      name: call.name,
      arguments: argsOf(call),
      status: 'completed',
    });
  const response = (status: string, items: unknown[], withUsage: boolean) => ({
    id: 'resp_opsgate_wire',
    object: 'response',
    created_at: 1787162400,
    status,
    error: null,
    incomplete_details: status === 'incomplete' ? incomplete : null,
    model,
    output: items,
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    usage: withUsage
      ? {
          input_tokens: usage.input,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: usage.output,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: usage.input + usage.output,
        }
      : null,
  });
  const finalStatus = incomplete ? 'incomplete' : 'completed';
  if (!stream) return json(200, response(finalStatus, output, true));
  let sequence = 0;
  const events: Array<Record<string, unknown>> = [{ type: 'response.created', response: response('in_progress', [], false) }];
  for (const [outputIndex, item] of (output as Array<Record<string, unknown>>).entries()) {
    if (item.type === 'message') {
      const part = (item.content as Array<Record<string, unknown>>)[0]!;
      events.push({ type: 'response.output_item.added', output_index: outputIndex, item: { ...item, status: 'in_progress', content: [] } });
      if (part.type === 'output_text')
        for (const delta of pieces(String(part.text)))
          events.push({
            type: 'response.output_text.delta',
            item_id: item.id,
            output_index: outputIndex,
            content_index: 0,
            delta,
            logprobs: [],
          });
      else
        for (const delta of pieces(String(part.refusal)))
          events.push({ type: 'response.refusal.delta', item_id: item.id, output_index: outputIndex, content_index: 0, delta });
    } else {
      events.push({
        type: 'response.output_item.added',
        output_index: outputIndex,
        item: { ...item, arguments: '', status: 'in_progress' },
      });
      for (const delta of pieces(String(item.arguments)))
        events.push({ type: 'response.function_call_arguments.delta', item_id: item.id, output_index: outputIndex, delta });
    }
    events.push({ type: 'response.output_item.done', output_index: outputIndex, item });
  }
  events.push({ type: incomplete ? 'response.incomplete' : 'response.completed', response: response(finalStatus, output, true) });
  return sse(
    events.map((event) => ({ ...event, sequence_number: sequence++ })),
    { named: true },
  );
}

// ---- Anthropic Messages -----------------------------------------------------------------------

function anthropic(reply: Reply, stream: boolean, model: string): WireResponse {
  if (reply.kind === 'refusal') return recorded('anthropic', 'anthropic/anthropic-refusal', stream);
  const usage = usageOf(reply);
  const text = textOf(reply);
  const calls = callsOf(reply);
  const stopReason = reply.kind === 'length' ? 'max_tokens' : calls.length > 0 ? 'tool_use' : 'end_turn';
  const blocks: Array<Record<string, unknown>> = [];
  if (text) blocks.push({ type: 'text', text });
  for (const [i, call] of calls.entries())
    blocks.push({ type: 'tool_use', id: `toolu_0${i}_wire`, name: call.name, input: call.raw ?? call.args ?? {} });
  const usageJson = { input_tokens: usage.input, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: usage.output };
  const message = { id: 'msg_01OpsgateWire', type: 'message', role: 'assistant', model, stop_sequence: null };
  if (!stream) return json(200, { ...message, content: blocks, stop_reason: stopReason, usage: usageJson });
  const events: unknown[] = [
    { type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: { ...usageJson, output_tokens: 1 } } },
  ];
  for (const [index, block] of blocks.entries()) {
    if (block.type === 'text') {
      events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const piece of pieces(String(block.text)))
        events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } });
    } else {
      events.push({ type: 'content_block_start', index, content_block: { ...block, input: {} } });
      const raw = typeof block.input === 'string' ? block.input : JSON.stringify(block.input);
      for (const piece of pieces(raw))
        events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } });
    }
    events.push({ type: 'content_block_stop', index });
  }
  events.push({ type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: usageJson });
  events.push({ type: 'message_stop' });
  return sse(events, { named: true });
}

// ---- Bedrock Converse -------------------------------------------------------------------------

function bedrock(reply: Reply, stream: boolean): WireResponse {
  const usage = usageOf(reply);
  const text = textOf(reply) || (reply.kind === 'refusal' ? reply.text : '');
  const calls = callsOf(reply);
  const stopReason =
    reply.kind === 'length' ? 'max_tokens' : reply.kind === 'refusal' ? 'content_filtered' : calls.length > 0 ? 'tool_use' : 'end_turn';
  const usageJson = { inputTokens: usage.input, outputTokens: usage.output, totalTokens: usage.input + usage.output };
  if (!stream) {
    const content: unknown[] = [];
    if (text) content.push({ text });
    for (const [i, call] of calls.entries())
      content.push({ toolUse: { toolUseId: `tooluse_${i}_wire`, name: call.name, input: call.raw ?? call.args ?? {} } });
    return json(200, { output: { message: { role: 'assistant', content } }, stopReason, usage: usageJson, metrics: { latencyMs: 234 } });
  }
  const events: Array<Record<string, unknown>> = [{ messageStart: { role: 'assistant' } }];
  let index = 0;
  if (text) {
    for (const piece of pieces(text)) events.push({ contentBlockDelta: { contentBlockIndex: index, delta: { text: piece } } });
    events.push({ contentBlockStop: { contentBlockIndex: index } });
    index += 1;
  }
  for (const [i, call] of calls.entries()) {
    events.push({
      contentBlockStart: { contentBlockIndex: index, start: { toolUse: { toolUseId: `tooluse_${i}_wire`, name: call.name } } },
    });
    for (const piece of pieces(argsOf(call)))
      events.push({ contentBlockDelta: { contentBlockIndex: index, delta: { toolUse: { input: piece } } } });
    events.push({ contentBlockStop: { contentBlockIndex: index } });
    index += 1;
  }
  events.push({ messageStop: { stopReason } });
  events.push({ metadata: { usage: usageJson, metrics: { latencyMs: 234 } } });
  return { status: 200, headers: { 'content-type': 'application/vnd.amazon.eventstream' }, body: Buffer.concat(events.map(bedrockEvent)) };
}

// ---- Google Gemini ----------------------------------------------------------------------------

function google(reply: Reply, stream: boolean, model: string): WireResponse {
  const usage = usageOf(reply);
  const text = textOf(reply);
  const calls = callsOf(reply);
  const finishReason = reply.kind === 'length' ? 'MAX_TOKENS' : reply.kind === 'refusal' ? 'SAFETY' : 'STOP';
  const usageMetadata = { promptTokenCount: usage.input, candidatesTokenCount: usage.output, totalTokenCount: usage.input + usage.output };
  const envelope = { modelVersion: model, responseId: 'opsgate-wire' };
  const parts: unknown[] = [];
  if (text) parts.push({ text });
  // Gemini sends arguments as an object: a model's bad arguments are wrong values, never broken JSON.
  for (const call of calls) parts.push({ functionCall: { name: call.name, args: call.args ?? {} } });
  const candidate = (content: unknown[], finish?: string) => ({
    ...(content.length > 0 ? { content: { parts: content, role: 'model' } } : {}),
    ...(finish ? { finishReason: finish } : {}),
    index: 0,
  });
  if (!stream) return json(200, { candidates: [candidate(parts, finishReason)], usageMetadata, ...envelope });
  const events: unknown[] = parts.map((part) => ({ candidates: [candidate([part])], usageMetadata, ...envelope }));
  events.push({ candidates: [candidate([], finishReason)], usageMetadata, ...envelope });
  return sse(events);
}

// ---- errors, as each provider really words them -------------------------------------------------

function errorReply(protocol: Protocol, reply: Extract<Reply, { kind: 'expired-key' | 'rate-limit' | 'server-error' }>): WireResponse {
  const retry: Record<string, string> = reply.kind === 'rate-limit' ? { 'retry-after': String(reply.retryAfterSeconds) } : {};
  const status = reply.kind === 'expired-key' ? 401 : reply.kind === 'rate-limit' ? 429 : 500;
  switch (protocol) {
    case 'openai-chat':
    case 'openai-responses':
    case 'compatible': {
      const error = {
        'expired-key': {
          message:
            'Incorrect API key provided: sk-proj-****wire. You can find your API key at https://platform.openai.com/account/api-keys.',
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_api_key',
        },
        'rate-limit': {
          message:
            'Rate limit reached for gpt-4.1 in organization org-wire on tokens per min (TPM): Limit 30000, Used 30000, Requested 1200. Please try again in 2.4s.',
          type: 'tokens',
          param: null,
          code: 'rate_limit_exceeded',
        },
        'server-error': {
          message: 'The server had an error while processing your request. Sorry about that!',
          type: 'server_error',
          param: null,
          code: null,
        },
      }[reply.kind];
      return json(status, { error }, retry);
    }
    case 'anthropic': {
      const error = {
        'expired-key': { type: 'authentication_error', message: 'invalid x-api-key' },
        'rate-limit': {
          type: 'rate_limit_error',
          message: 'This request would exceed the rate limit for your organization of 50,000 input tokens per minute.',
        },
        'server-error': { type: 'api_error', message: 'Internal server error' },
      }[reply.kind];
      return json(status, { type: 'error', error, request_id: 'req_wire' }, retry);
    }
    case 'bedrock': {
      const [type, message] = {
        'expired-key': ['ExpiredTokenException', 'The security token included in the request is expired'],
        'rate-limit': ['ThrottlingException', 'Too many requests, please wait before trying again.'],
        'server-error': ['InternalServerException', 'The server encountered an internal error. Try your request again.'],
      }[reply.kind];
      return json(
        reply.kind === 'expired-key' ? 403 : status,
        { message },
        { 'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`, ...retry },
      );
    }
    case 'google': {
      if (reply.kind === 'rate-limit') return json(429, JSON.parse(fixture('google/google-429-retry-info.json')), retry);
      if (reply.kind === 'expired-key')
        return json(400, {
          error: {
            code: 400,
            message: 'API key expired. Please renew the API key.',
            status: 'INVALID_ARGUMENT',
            details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' }],
          },
        });
      return json(500, {
        error: {
          code: 500,
          message: 'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
          status: 'INTERNAL',
        },
      });
    }
  }
}

/** A refused request (a broken rule), worded in the provider's own error format so its client reads the message. */
export function refusal(protocol: Protocol, message: string): WireResponse {
  switch (protocol) {
    case 'anthropic':
      return json(400, { type: 'error', error: { type: 'invalid_request_error', message } });
    case 'bedrock':
      return json(400, { message }, { 'x-amzn-errortype': 'ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/' });
    case 'google':
      return json(400, { error: { code: 400, message, status: 'INVALID_ARGUMENT' } });
    default:
      return json(400, { error: { message, type: 'invalid_request_error', param: null, code: null } });
  }
}

/** A recording replayed as it was captured. */
export function recorded(protocol: Protocol, name: string, stream: boolean): WireResponse {
  if (!stream) return { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(fixture(`${name}.json`)) };
  const events = fixture(`${name}.chunks.txt`)
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  if (protocol === 'bedrock')
    return {
      status: 200,
      headers: { 'content-type': 'application/vnd.amazon.eventstream' },
      body: Buffer.concat(events.map(bedrockEvent)),
    };
  const named = protocol === 'anthropic' || protocol === 'openai-responses';
  return sse(events, { done: protocol === 'openai-chat' || protocol === 'compatible', named });
}

/** The reply in the protocol's wire format. */
export function render(protocol: Protocol, reply: Reply, stream: boolean, model: string): WireResponse {
  if (reply.kind === 'expired-key' || reply.kind === 'rate-limit' || reply.kind === 'server-error') return errorReply(protocol, reply);
  if (reply.kind === 'recorded') return recorded(protocol, reply.fixture, stream);
  switch (protocol) {
    case 'openai-chat':
    case 'compatible':
      return openaiChat(reply, stream, model);
    case 'openai-responses':
      return openaiResponses(reply, stream, model);
    case 'anthropic':
      return anthropic(reply, stream, model);
    case 'bedrock':
      return bedrock(reply, stream);
    case 'google':
      return google(reply, stream, model);
  }
}
