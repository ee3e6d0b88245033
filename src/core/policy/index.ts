export { APPROVAL_BINDING_VERSION, approvalHash } from './approval-binding.ts';
export {
  type ApprovalVerdict,
  type CallDecision,
  type CallPolicy,
  createCedarPolicy,
  DEFAULT_POLICY_DIR,
  type DecideCallInput,
  type LoadedPolicy,
  loadPolicyDirectory,
  type MayApproveInput,
  type PolicyCall,
  PolicyErrors,
  type PolicyPrincipal,
  type PolicySet,
  policySchema,
  RISK_LEVELS,
} from './cedar/index.ts';
export { decidePolicy, type PolicyDecision, type PolicyInput, VALIDATOR_POLICY_ID } from './policy.ts';
export { type ApprovalBindingCheck, approvalStillBinds } from './verify-approval.ts';
