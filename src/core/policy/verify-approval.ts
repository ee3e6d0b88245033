import { approvalHash } from './approval-binding.ts';

export interface ApprovalBindingCheck {
  readonly callId: string;
  readonly tool: string;
  /** The arguments about to run, as stored at the proposal. */
  readonly args: unknown;
  /** What the tool binds besides the arguments (a plan, a changeset), recomputed now. */
  readonly bindingDigest?: string;
  /** The hash stored with the proposal. */
  readonly storedHash: string;
  /** The hash the person was shown and approved. */
  readonly shownHash: string;
}

/**
 * An approval holds only for what the person saw: the stored proposal, the approval they were
 * shown and the arguments and preview as they are now must all hash alike. Any change voids it.
 */
export function approvalStillBinds(check: ApprovalBindingCheck): boolean {
  const expected = approvalHash(check.callId, check.tool, check.args, check.bindingDigest);
  return expected === check.storedHash && expected === check.shownHash;
}
