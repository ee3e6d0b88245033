export type { ModelGuardOptions } from './guarded-model.ts';
export type { InterpreterAction, InterpreterRules, InterpreterTurn } from './interpreter-rules.ts';
export {
  BASE_URL_VARIABLES,
  chooseModel,
  createConfiguredModel,
  describeModelChoice,
  type ModelChoice,
  type ModelProviderName,
} from './model-config.ts';
export { KEY_VARIABLES, ModelErrors } from './model-errors.ts';
export { costOf, type ModelPrice, parseModelPrice, priceOf } from './model-prices.ts';
export { coreCommand, createOfflineModel } from './offline-model.ts';
export { readInterpreterTurn } from './prompt-reader.ts';
