export { readOnlyRetryMiddleware, type ReadOnlyRetryOptions } from './read-only-retry.ts';
