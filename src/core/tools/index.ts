export { assessToolRisk } from './assess-risk.ts';
export {
  type AnyToolDefinition,
  type ApprovalPreview,
  defineTool,
  type IdentityBinding,
  type Mutability,
  type PolicyTarget,
  type Risk,
  type RiskAssessment,
  type Scope,
  type ToolContext,
  type ToolDefinition,
  type ToolEventSink,
  type ToolSpec,
  type ValidatorVerdict,
} from './define-tool.ts';
export { type RegisterOptions, type RegistryWarningSink, ToolRegistry } from './tool-registry.ts';
