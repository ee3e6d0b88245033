export type { InterpreterRules, InterpreterTurn, InterpreterAction } from './interpreter-rules.ts';
export { createOfflineModel, coreCommand } from './offline-model.ts';
export { readInterpreterTurn } from './prompt-reader.ts';
export { chooseModel, createConfiguredModel, describeModelChoice, type ModelChoice, type ModelProviderName } from './model-config.ts';
