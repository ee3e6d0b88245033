export type { CorpusCase } from './corpus-case.ts';
export { DANGEROUS_COMMANDS } from './dangerous.ts';
export { LEGITIMATE_COMMANDS } from './legitimate.ts';
