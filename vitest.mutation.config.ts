import { defineConfig } from 'vitest/config';

// The tests StrykerJS runs against each mutant of the safety modules (stryker.config.json): the
// unit tests beside them and the suites that need no outside service, so a mutation run needs no
// PostgreSQL, sshd or browser.
export default defineConfig({
  test: {
    include: [
      'src/core/policy/**/*.test.ts',
      'src/core/runtime/**/*.test.ts',
      'src/core/audit/**/*.test.ts',
      'src/agents/sandbox/engines/**/*.test.ts',
      'src/agents/troubleshoot/validator/**/*.test.ts',
      'src/agents/troubleshoot/risk.test.ts',
      'src/agents/troubleshoot/risk/**/*.test.ts',
      'src/agents/helm/middleware/**/*.test.ts',
      'test/core/runtime.test.ts',
      'test/core/decision-authorizer.test.ts',
      'test/core/stale-decision.test.ts',
      'test/core/approval-binding.test.ts',
      'test/core/audit-integrity.test.ts',
      'test/security/decision-matrix.test.ts',
    ],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
