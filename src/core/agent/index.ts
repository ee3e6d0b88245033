export {
  defineAgent,
  QUERY_PHASE,
  STANDARD_PHASE,
  type AgentDefinition,
  type AgentParts,
  type AgentSetupContext,
  type AutoApproveRule,
  type Clock,
  type PhaseDefinition,
  type Route,
  type SecretStore,
  type SessionView,
  type ToolCallInvocation,
  type ToolMiddleware,
  type WorkflowDefinition,
} from './define-agent.ts';
export { createStoreSecretStore } from './secret-store.ts';
