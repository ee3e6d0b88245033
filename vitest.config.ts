import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { SlowestFirstSequencer } from './scripts/test-sequencer.ts';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'scripts/**/*.test.ts', 'eval/**/*.test.ts', 'examples/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most files wait on a browser, sshd, PostgreSQL or a child process rather than compute, so one
    // file more than there are cores keeps the CPU busy (vitest's default, cores - 1, ran one file at
    // a time on a two-core machine). Workers are reused across files: re-importing Fastify, the AI
    // SDK, Kysely and Cedar's WASM for each of ~150 files cost more than any test. A test therefore
    // must not depend on which modules another file loaded first (the error-table tests import
    // every table themselves).
    maxWorkers: availableParallelism() + 1,
    isolate: false,
    sequence: { sequencer: SlowestFirstSequencer },
  },
});
