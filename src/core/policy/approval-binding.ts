import { createHash } from 'node:crypto';
import { canonicalJson } from '../audit/canonical-json.ts';

/** Version of the approval-hash input; an approval made under another version never matches. */
export const APPROVAL_BINDING_VERSION = 'opsgate-approval-v1';

/**
 * The hash an approval is bound to: the call, the tool, the exact validated arguments and any
 * extra material the tool binds (a plan hash, a changeset hash). Any change voids the approval.
 */
export function approvalHash(callId: string, tool: string, args: unknown, bindingDigest = ''): string {
  const argsDigest = createHash('sha256').update(canonicalJson(args)).digest('hex');
  return createHash('sha256')
    .update(canonicalJson([APPROVAL_BINDING_VERSION, callId, tool, argsDigest, bindingDigest]))
    .digest('hex');
}
