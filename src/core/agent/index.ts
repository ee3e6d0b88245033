export {
  type AgentDefinition,
  type AgentParts,
  type AgentSetupContext,
  type AutoApproveRule,
  type Clock,
  defineAgent,
  type PhaseDefinition,
  QUERY_PHASE,
  type Route,
  type SecretStore,
  type SessionView,
  STANDARD_PHASE,
  type ToolCallInvocation,
  type ToolMiddleware,
  type WorkflowDefinition,
} from './define-agent.ts';
export { createStoreSecretStore } from './secret-store.ts';
