export { APPROVAL_BINDING_VERSION, approvalHash } from './approval-binding.ts';
export { decidePolicy, type PolicyDecision, type PolicyInput } from './policy.ts';
export { type ApprovalBindingCheck, approvalStillBinds } from './verify-approval.ts';
