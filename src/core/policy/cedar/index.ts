export {
  type ApprovalVerdict,
  type CallDecision,
  type CallPolicy,
  createCedarPolicy,
  type DecideCallInput,
  type MayApproveInput,
} from './cedar-policy.ts';
export { type PolicyCall, type PolicyPrincipal, RISK_LEVELS } from './cedar-request.ts';
export { DEFAULT_POLICY_DIR, type LoadedPolicy, loadPolicyDirectory, type PolicySet, policySchema } from './policy-directory.ts';
export { PolicyErrors } from './policy-errors.ts';
