import { type Attributes, type Span, SpanKind, type SpanOptions, SpanStatusCode, trace } from '@opentelemetry/api';

/** Spans follow the OpenTelemetry GenAI semantic conventions (gen_ai.*). No SDK registered: no-ops. */
const tracer = () => trace.getTracer('opsgate');

/** Runs `run` in an active span that records a failure (status and `error.type`) and always ends. */
function inSpan<T>(name: string, options: SpanOptions, run: (span: Span) => Promise<T>): Promise<T> {
  return tracer().startActiveSpan(name, options, async (span) => {
    try {
      return await run(span);
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      span.setAttribute('error.type', error instanceof Error ? error.name : 'Error');
      throw error;
    } finally {
      span.end();
    }
  });
}

export interface ModelSpanInfo {
  readonly provider: string;
  readonly modelId: string;
}

export interface ModelUsage {
  readonly inputTokens?: number;
  readonly outputTokens?: number;
}

/** Runs one model call in a `chat {model}` span; `run` reports the usage it saw. */
export async function withModelSpan<T>(model: ModelSpanInfo, run: (reportUsage: (usage: ModelUsage) => void) => Promise<T>): Promise<T> {
  return inSpan(
    `chat ${model.modelId}`,
    {
      kind: SpanKind.CLIENT,
      attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': model.provider, 'gen_ai.request.model': model.modelId },
    },
    (span) =>
      run((usage) => {
        const attributes: Attributes = {};
        if (usage.inputTokens !== undefined) attributes['gen_ai.usage.input_tokens'] = usage.inputTokens;
        if (usage.outputTokens !== undefined) attributes['gen_ai.usage.output_tokens'] = usage.outputTokens;
        span.setAttributes(attributes);
      }),
  );
}

export interface ToolSpanInfo {
  readonly tool: string;
  readonly callId: string;
  readonly description?: string;
  readonly mutability: string;
}

/** Runs one tool execution in an `execute_tool {tool}` span. */
export async function withToolSpan<T>(info: ToolSpanInfo, run: () => Promise<T>): Promise<T> {
  return inSpan(
    `execute_tool ${info.tool}`,
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': info.tool,
        'gen_ai.tool.call.id': info.callId,
        'gen_ai.tool.type': 'function',
        ...(info.description ? { 'gen_ai.tool.description': info.description } : {}),
        'opsgate.tool.mutability': info.mutability,
      },
    },
    () => run(),
  );
}
