export { type ReadOnlyRetryOptions, readOnlyRetryMiddleware } from './read-only-retry.ts';
