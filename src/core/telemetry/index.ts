export { createMetrics, type MetricsOptions, type OpsgateMetrics, type RuntimeMetrics } from './metrics.ts';
