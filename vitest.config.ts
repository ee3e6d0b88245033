import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'scripts/**/*.test.ts', 'eval/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most test files wait on something real (a browser, PostgreSQL, sshd, a child process), so
    // three workers keep two cores busy; vitest's default (cores - 1) ran one file at a time here
    // and took 12 minutes for 5 minutes of work.
    maxWorkers: 3,
    reporters: process.env.CI ? ['default'] : ['default'],
  },
});
