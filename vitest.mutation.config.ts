import { defineConfig } from 'vitest/config';
import { ALL_MUTATION_SUITES, MUTATION_TESTS_VARIABLE } from './scripts/mutation.ts';

// The tests StrykerJS runs against each mutant of the safety modules (stryker.config.json): only the
// suites that prove the module being mutated (scripts/mutation.ts names them per module and passes
// them in the environment). None needs sshd or a browser; the audit modules' suites need PostgreSQL
// for the code that runs only there, and `npm run test:mutation` starts a throwaway cluster for them.
const moduleSuites = process.env[MUTATION_TESTS_VARIABLE];

export default defineConfig({
  test: {
    include: moduleSuites ? (JSON.parse(moduleSuites) as string[]) : [...ALL_MUTATION_SUITES],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
