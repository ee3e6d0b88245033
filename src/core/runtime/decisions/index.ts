export { answerQuestion } from './answer.ts';
export { approveCall } from './approve.ts';
export {
  authorizeDecision,
  type CallAsItWillRun,
  type DecisionAuthorization,
  type DecisionMarks,
  type DecisionRequest,
  decisionMarks,
} from './authorize-decision.ts';
export { continueAfterSoftTimeout } from './continue.ts';
export type { ApprovalDecisionContext, DecisionContext } from './decision-context.ts';
export { expireCall, hasExpired } from './expire.ts';
export { modifyCall } from './modify.ts';
export { rejectCall } from './reject.ts';
export { replanCall } from './replan.ts';
export { withdrawCall } from './withdraw.ts';
