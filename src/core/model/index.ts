export type { InterpreterAction, InterpreterRules, InterpreterTurn } from './interpreter-rules.ts';
export { chooseModel, createConfiguredModel, describeModelChoice, type ModelChoice, type ModelProviderName } from './model-config.ts';
export { coreCommand, createOfflineModel } from './offline-model.ts';
export { readInterpreterTurn } from './prompt-reader.ts';
