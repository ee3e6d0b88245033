export {
  defineTool,
  type ToolDefinition,
  type AnyToolDefinition,
  type ToolSpec,
  type ToolContext,
  type ToolEventSink,
  type Mutability,
  type Risk,
  type Scope,
  type ValidatorVerdict,
  type IdentityBinding,
  type ApprovalPreview,
} from './define-tool.ts';
export { ToolRegistry, type RegisterOptions, type RegistryWarningSink } from './tool-registry.ts';
