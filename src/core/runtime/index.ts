export { createRuntime, decisionFromText } from './create-runtime.ts';
export type { Runtime, RuntimeOptions, AgentInfo, ModelResolver, SessionEventFeed } from './runtime-api.ts';
export type * from './types.ts';
export { HUMAN_INPUT_TOOL, QUESTION_OPTIONS } from './human-input-tool.ts';
export { ToolContinuation } from './tool-continuation.ts';
export { SESSION_STATE_VERSION } from './session-state.ts';
