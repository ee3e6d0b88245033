export { BYPASS_CLASSES, FORMER_FALSE_POSITIVES } from './bypass-classes.ts';
export type { CorpusCase } from './corpus-case.ts';
export { DANGEROUS_COMMANDS } from './dangerous.ts';
export { LEGITIMATE_COMMANDS } from './legitimate.ts';
