export { approvalHash, APPROVAL_BINDING_VERSION } from './approval-binding.ts';
export { decidePolicy, type PolicyDecision, type PolicyInput } from './policy.ts';
