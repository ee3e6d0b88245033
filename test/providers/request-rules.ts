import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/** The wire protocols the test server speaks. */
export type Protocol = 'openai-chat' | 'openai-responses' | 'anthropic' | 'bedrock' | 'google' | 'compatible';

/** A broken rule: `rule` names it the way the provider's documentation does. */
export interface Violation {
  readonly rule: string;
  readonly detail: string;
}

type Json = Record<string, unknown>;

/**
 * The vendored OpenAPI cut. Two schemas use draft 2019-09's `$recursiveAnchor`/`$recursiveRef`,
 * which 2020-12 replaced: each `$recursiveRef: "#"` becomes a plain `$ref` to its own schema.
 */
function loadOpenApi(): Json {
  const document = JSON.parse(
    gunzipSync(readFileSync(new URL('./openapi/openai-requests.schema.json.gz', import.meta.url))).toString('utf8'),
  ) as { $defs: Record<string, Json> };
  for (const [name, schema] of Object.entries(document.$defs)) {
    if (!schema.$recursiveAnchor) continue;
    delete schema.$recursiveAnchor;
    document.$defs[name] = JSON.parse(JSON.stringify(schema).replaceAll('"$recursiveRef":"#"', `"$ref":"#/$defs/${name}"`)) as Json;
  }
  return asJsonSchema(document) as Json;
}

/**
 * OpenAPI 3.0's `nullable` (a few schemas keep it) as the JSON Schema it means, `type: [T, "null"]`;
 * and `oneOf` read as `anyOf`: the document uses it for unions whose branches overlap (a user
 * message is both an `EasyInputMessage` and an `InputMessage`), which the API accepts.
 */
function asJsonSchema(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(asJsonSchema);
  if (value === null || typeof value !== 'object') return value;
  const result: Json = {};
  for (const [key, inner] of Object.entries(value as Json))
    if (key !== 'nullable') result[key === 'oneOf' ? 'anyOf' : key] = asJsonSchema(inner);
  const node = value as Json;
  if (node.nullable === true && typeof node.type === 'string') result.type = [node.type, 'null'];
  return result;
}
const openapi = loadOpenApi();
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
addFormats.default(ajv);
ajv.addSchema(openapi, 'openai');
const openaiValidators = new Map<string, ValidateFunction>();

/** The body against OpenAI's published OpenAPI schema for the endpoint. */
function checkOpenApi(schemaName: string, body: unknown): Violation[] {
  let validate = openaiValidators.get(schemaName);
  if (!validate) {
    validate = ajv.compile({ $ref: `openai#/$defs/${schemaName}` });
    openaiValidators.set(schemaName, validate);
  }
  if (validate(body)) return [];
  return (validate.errors ?? [])
    .filter((error) => error.keyword !== 'if')
    .slice(0, 5)
    .map((error) => ({
      rule: `openai-openapi ${schemaName}`,
      detail: `${error.instancePath || '/'} ${error.message ?? ''} ${JSON.stringify(error.params)}`,
    }));
}

interface WireTool {
  readonly name: string;
  readonly description: unknown;
  readonly schema: unknown;
  readonly strict?: unknown;
}

const OPENAI_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
/** Bedrock's ToolSpecification name: a letter first, then letters, digits and underscores, at most 64. */
const BEDROCK_NAME = /^[a-zA-Z][a-zA-Z0-9_]{0,63}$/;
/** Gemini's FunctionDeclaration name: a letter or underscore first, then a-z, A-Z, 0-9, `_ . : -`, at most 64. */
const GEMINI_NAME = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/;

/** Keywords of Gemini's `Schema` object (an OpenAPI 3.0 subset); anything else is rejected by the API. */
const GEMINI_SCHEMA_KEYS = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'anyOf',
  'propertyOrdering',
  'default',
  'items',
  'minimum',
  'maximum',
]);

/** JSON Schema keywords OpenAI's structured outputs (strict mode) do not support. */
const OPENAI_STRICT_UNSUPPORTED = [
  'patternProperties',
  'unevaluatedProperties',
  'propertyNames',
  'minProperties',
  'maxProperties',
  'unevaluatedItems',
  'contains',
  'minContains',
  'maxContains',
  'uniqueItems',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  'dependentRequired',
  'dependentSchemas',
];

/** Every sub-schema with its path, the root first. */
function* schemaNodes(schema: unknown, path = '#'): Generator<[string, Json]> {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return;
  const node = schema as Json;
  yield [path, node];
  for (const key of ['properties', '$defs', 'definitions']) {
    const children = node[key];
    if (children && typeof children === 'object')
      for (const [name, child] of Object.entries(children as Json)) yield* schemaNodes(child, `${path}/${key}/${name}`);
  }
  for (const key of ['items', 'additionalProperties', 'not']) yield* schemaNodes(node[key], `${path}/${key}`);
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) {
    const list = node[key];
    if (Array.isArray(list)) for (const [i, child] of list.entries()) yield* schemaNodes(child, `${path}/${key}/${i}`);
  }
}

/** OpenAI strict mode: every object closed, every property required, no unsupported keyword, an object root. */
export function strictModeViolations(tool: string, schema: unknown): Violation[] {
  const violations: Violation[] = [];
  const rule = 'OpenAI strict mode (structured outputs)';
  if ((schema as Json | undefined)?.type !== 'object')
    violations.push({ rule, detail: `${tool}: the root schema must be an object, not anyOf or another type` });
  for (const [path, node] of schemaNodes(schema)) {
    for (const key of OPENAI_STRICT_UNSUPPORTED)
      if (key in node) violations.push({ rule, detail: `${tool} ${path}: keyword "${key}" is not supported` });
    const properties = node.properties as Json | undefined;
    if (node.type === 'object' || properties) {
      if (node.additionalProperties !== false) violations.push({ rule, detail: `${tool} ${path}: additionalProperties must be false` });
      const required = new Set((node.required as string[] | undefined) ?? []);
      for (const name of Object.keys(properties ?? {}))
        if (!required.has(name)) violations.push({ rule, detail: `${tool} ${path}: property "${name}" must be listed in required` });
    }
  }
  return violations;
}

function toolRules(
  protocol: Protocol,
  tools: readonly WireTool[],
  limits: { name: RegExp; nameRule: string; descriptionMax?: number; countMax?: number },
): Violation[] {
  const violations: Violation[] = [];
  if (limits.countMax !== undefined && tools.length > limits.countMax)
    violations.push({ rule: `${protocol}: at most ${limits.countMax} tools`, detail: `${tools.length} tools sent` });
  const seen = new Set<string>();
  for (const tool of tools) {
    if (!limits.name.test(tool.name)) violations.push({ rule: limits.nameRule, detail: `tool name "${tool.name}"` });
    if (seen.has(tool.name)) violations.push({ rule: `${protocol}: tool names are unique`, detail: tool.name });
    seen.add(tool.name);
    if (typeof tool.description !== 'string' || tool.description.trim() === '')
      violations.push({ rule: `${protocol}: every tool has a description`, detail: tool.name });
    else if (limits.descriptionMax !== undefined && tool.description.length > limits.descriptionMax)
      violations.push({
        rule: `${protocol}: tool description at most ${limits.descriptionMax} characters`,
        detail: `${tool.name}: ${tool.description.length}`,
      });
    if ((tool.schema as Json | undefined)?.type !== 'object')
      violations.push({ rule: `${protocol}: tool input schema has type "object"`, detail: tool.name });
    if (tool.strict === true) violations.push(...strictModeViolations(tool.name, tool.schema));
  }
  return violations;
}

/** Each tool call answered by exactly the next message(s), as every provider demands. */
function pairingRule(rule: string, turns: ReadonlyArray<{ calls: string[]; results: string[] }>): Violation[] {
  const violations: Violation[] = [];
  for (const [i, turn] of turns.entries()) {
    const next = turns[i + 1];
    if (turn.calls.length === 0) continue;
    const missing = turn.calls.filter((id) => !next?.results.includes(id));
    if (missing.length > 0) violations.push({ rule, detail: `call(s) ${missing.join(', ')} have no result in the next message` });
  }
  for (const [i, turn] of turns.entries()) {
    const previous = turns[i - 1];
    const orphans = turn.results.filter((id) => !previous?.calls.includes(id));
    if (orphans.length > 0) violations.push({ rule, detail: `result(s) ${orphans.join(', ')} answer no call of the previous message` });
  }
  return violations;
}

function openaiChat(body: Json, protocol: Protocol): Violation[] {
  const tools = ((body.tools as Json[] | undefined) ?? []).map((t) => {
    const fn = t.function as Json;
    return { name: String(fn.name), description: fn.description, schema: fn.parameters, strict: fn.strict };
  });
  const messages = (body.messages as Json[] | undefined) ?? [];
  // OpenAI: "messages with role 'tool' must be a response to a preceding message with 'tool_calls'".
  const turns: Array<{ calls: string[]; results: string[] }> = [];
  for (const message of messages) {
    if (message.role === 'tool') {
      const last = turns.at(-1);
      if (last && last.calls.length === 0) last.results.push(String(message.tool_call_id));
      else turns.push({ calls: [], results: [String(message.tool_call_id)] });
    } else turns.push({ calls: ((message.tool_calls as Json[] | undefined) ?? []).map((c) => String(c.id)), results: [] });
  }
  return [
    ...checkOpenApi('CreateChatCompletionRequest', body),
    ...toolRules(protocol, tools, {
      name: OPENAI_NAME,
      nameRule: 'OpenAI function name ^[a-zA-Z0-9_-]{1,64}$',
      descriptionMax: 1024,
      countMax: 128,
    }),
    ...pairingRule("OpenAI: each assistant tool_call is answered by a 'tool' message", turns),
  ];
}

function openaiResponses(body: Json): Violation[] {
  const tools = ((body.tools as Json[] | undefined) ?? [])
    .filter((t) => t.type === 'function')
    .map((t) => ({ name: String(t.name), description: t.description, schema: t.parameters, strict: t.strict }));
  const input = Array.isArray(body.input) ? (body.input as Json[]) : [];
  const calls = new Set(input.filter((item) => item.type === 'function_call').map((item) => String(item.call_id)));
  const orphans = input.filter((item) => item.type === 'function_call_output' && !calls.has(String(item.call_id)));
  return [
    ...checkOpenApi('CreateResponse', body),
    ...toolRules('openai-responses', tools, {
      name: OPENAI_NAME,
      nameRule: 'OpenAI function name ^[a-zA-Z0-9_-]{1,64}$',
      descriptionMax: 1024,
      countMax: 128,
    }),
    ...orphans.map((item) => ({
      rule: 'OpenAI Responses: No tool call found for function call output',
      detail: `call_id ${String(item.call_id)}`,
    })),
  ];
}

function blocksOf(content: unknown): Json[] {
  return Array.isArray(content) ? (content as Json[]) : [];
}

function anthropic(body: Json): Violation[] {
  const violations: Violation[] = [];
  if (typeof body.model !== 'string') violations.push({ rule: 'Anthropic Messages: model is required', detail: 'missing' });
  if (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 1)
    violations.push({ rule: 'Anthropic Messages: max_tokens is a positive integer', detail: String(body.max_tokens) });
  const messages = (body.messages as Json[] | undefined) ?? [];
  if (messages[0]?.role !== 'user')
    violations.push({ rule: 'Anthropic Messages: the first message is from the user', detail: String(messages[0]?.role) });
  for (const [i, m] of messages.entries()) {
    if (m.role !== 'user' && m.role !== 'assistant')
      violations.push({
        rule: 'Anthropic Messages: roles are user or assistant (system is top-level)',
        detail: `messages[${i}].role=${String(m.role)}`,
      });
    for (const block of blocksOf(m.content))
      if (block.type === 'text' && String(block.text ?? '').trim() === '')
        violations.push({ rule: 'Anthropic Messages: text content blocks must be non-empty', detail: `messages[${i}]` });
  }
  const turns = messages.map((m) => ({
    calls: blocksOf(m.content)
      .filter((b) => b.type === 'tool_use')
      .map((b) => String(b.id)),
    results: blocksOf(m.content)
      .filter((b) => b.type === 'tool_result')
      .map((b) => String(b.tool_use_id)),
  }));
  violations.push(...pairingRule('Anthropic: tool_use ids must have tool_result blocks immediately after', turns));
  const tools = ((body.tools as Json[] | undefined) ?? []).map((t) => ({
    name: String(t.name),
    description: t.description,
    schema: t.input_schema,
  }));
  violations.push(...toolRules('anthropic', tools, { name: OPENAI_NAME, nameRule: 'Anthropic tool name ^[a-zA-Z0-9_-]{1,64}$' }));
  return violations;
}

function bedrock(body: Json): Violation[] {
  const violations: Violation[] = [];
  const messages = (body.messages as Json[] | undefined) ?? [];
  if (messages[0]?.role !== 'user')
    violations.push({ rule: 'Bedrock Converse: a conversation must start with a user message', detail: String(messages[0]?.role) });
  for (const [i, m] of messages.entries()) {
    if (i > 0 && messages[i - 1]!.role === m.role)
      violations.push({
        rule: 'Bedrock Converse: a conversation must alternate between user and assistant roles',
        detail: `messages[${i}]`,
      });
    for (const block of blocksOf(m.content))
      if ('text' in block && String(block.text).trim() === '')
        violations.push({ rule: 'Bedrock Converse: the text field in the ContentBlock object is blank', detail: `messages[${i}]` });
  }
  const turns = messages.map((m) => ({
    calls: blocksOf(m.content)
      .filter((b) => b.toolUse)
      .map((b) => String((b.toolUse as Json).toolUseId)),
    results: blocksOf(m.content)
      .filter((b) => b.toolResult)
      .map((b) => String((b.toolResult as Json).toolUseId)),
  }));
  violations.push(...pairingRule('Bedrock Converse: every toolUse is answered by a toolResult in the next message', turns));
  const toolConfig = body.toolConfig as Json | undefined;
  const tools = ((toolConfig?.tools as Json[] | undefined) ?? [])
    .filter((t) => t.toolSpec)
    .map((t) => {
      const spec = t.toolSpec as Json;
      return { name: String(spec.name), description: spec.description, schema: (spec.inputSchema as Json | undefined)?.json };
    });
  violations.push(
    ...toolRules('bedrock', tools, { name: BEDROCK_NAME, nameRule: 'Bedrock ToolSpecification name [a-zA-Z][a-zA-Z0-9_]* (1 to 64)' }),
  );
  return violations;
}

function geminiSchema(tool: string, schema: unknown): Violation[] {
  const violations: Violation[] = [];
  for (const [path, node] of schemaNodes(schema)) {
    for (const key of Object.keys(node))
      if (!GEMINI_SCHEMA_KEYS.has(key))
        violations.push({ rule: 'Gemini Schema (OpenAPI subset): unsupported field', detail: `${tool} ${path}: "${key}"` });
    if (Array.isArray(node.enum) && node.enum.some((v) => typeof v !== 'string'))
      violations.push({ rule: 'Gemini Schema: enum values are strings', detail: `${tool} ${path}` });
  }
  return violations;
}

function google(body: Json): Violation[] {
  const violations: Violation[] = [];
  const contents = (body.contents as Json[] | undefined) ?? [];
  for (const [i, c] of contents.entries())
    if (c.role !== 'user' && c.role !== 'model')
      violations.push({ rule: 'Gemini: content role is user or model', detail: `contents[${i}].role=${String(c.role)}` });
  // Gemini: "the number of function response parts is equal to the number of function call parts of the function call turn".
  for (const [i, c] of contents.entries()) {
    const calls = blocksOf(c.parts).filter((p) => p.functionCall);
    if (calls.length === 0) continue;
    const responses = blocksOf(contents[i + 1]?.parts).filter((p) => p.functionResponse);
    const names = (parts: Json[], key: string) =>
      parts
        .map((p) => String((p[key] as Json).name))
        .sort()
        .join(',');
    if (responses.length !== calls.length || names(calls, 'functionCall') !== names(responses, 'functionResponse'))
      violations.push({
        rule: 'Gemini: the number of function response parts equals the number of function call parts of the function call turn',
        detail: `contents[${i}] calls ${names(calls, 'functionCall')}; contents[${i + 1}] answers ${names(responses, 'functionResponse') || 'nothing'}`,
      });
  }
  const declarations = ((body.tools as Json[] | undefined) ?? []).flatMap((t) => (t.functionDeclarations as Json[] | undefined) ?? []);
  // `parameters` takes the OpenAPI subset; `parametersJsonSchema` (v1beta, what the AI SDK sends) plain JSON Schema.
  const tools = declarations.map((d) => ({
    name: String(d.name),
    description: d.description,
    schema: d.parameters ?? d.parametersJsonSchema,
  }));
  violations.push(
    ...toolRules('google', tools, {
      name: GEMINI_NAME,
      nameRule: 'Gemini function name [a-zA-Z_][a-zA-Z0-9_.:-]* (1 to 64)',
      countMax: 512,
    }),
  );
  for (const d of declarations) {
    if (d.parameters !== undefined && d.parametersJsonSchema !== undefined)
      violations.push({ rule: 'Gemini: parameters and parametersJsonSchema are mutually exclusive', detail: String(d.name) });
    if (d.parameters !== undefined) violations.push(...geminiSchema(String(d.name), d.parameters));
  }
  return violations;
}

/** Every documented rule the request breaks, or none. */
export function checkRequest(protocol: Protocol, body: unknown): Violation[] {
  if (body === null || typeof body !== 'object') return [{ rule: 'request body is a JSON object', detail: typeof body }];
  const json = body as Json;
  switch (protocol) {
    case 'openai-chat':
    case 'compatible':
      return openaiChat(json, protocol);
    case 'openai-responses':
      return openaiResponses(json);
    case 'anthropic':
      return anthropic(json);
    case 'bedrock':
      return bedrock(json);
    case 'google':
      return google(json);
  }
}
