export { NO_OBSERVER, type RuntimeObserver } from './observer.ts';
export { createPrometheusObserver, type PrometheusObserver } from './prometheus-observer.ts';
export { type ModelSpanInfo, type ModelUsage, type ToolSpanInfo, withModelSpan, withToolSpan } from './tracing.ts';
