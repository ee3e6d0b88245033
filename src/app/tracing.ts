import { trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';

/** Where spans go: the standard OpenTelemetry variables. Nothing is exported when neither is set. */
function tracingEndpoint(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (traces) return traces;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  return base ? `${base.replace(/\/+$/, '')}/v1/traces` : undefined;
}

/**
 * Exports the runtime's spans (model calls and tool executions, GenAI conventions) over OTLP/HTTP
 * when an endpoint is configured; returns how to flush and stop, or undefined when tracing is off.
 */
export function startTracing(
  env: Readonly<Record<string, string | undefined>>,
  processor?: SpanProcessor,
): { shutdown(): Promise<void> } | undefined {
  const url = tracingEndpoint(env);
  if (!url && !processor) return undefined;
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME?.trim() || 'opsgate' }),
    spanProcessors: [processor ?? new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url }) })],
  });
  trace.setGlobalTracerProvider(provider);
  return {
    async shutdown() {
      await provider.shutdown();
      trace.disable();
    },
  };
}
