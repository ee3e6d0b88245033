import { defineErrorCodes } from '../../errors/index.ts';

export const PolicyErrors = defineErrorCodes({
  POLICY_DIR_NOT_FOUND: {
    status: 500,
    message:
      'The policy directory {dir} does not exist or holds no .cedar files. Point OPSGATE_POLICY_DIR at a directory of Cedar policies, or unset it to use the default policy.',
  },
  POLICY_INVALID: {
    status: 500,
    message: 'The Cedar policy in {dir} is invalid: {detail}. Fix it and check it with "opsgate policy check --dir {dir}".',
  },
  POLICY_EVALUATION_FAILED: {
    status: 500,
    message: 'The Cedar policy could not decide {action} for {tool}: {detail}. Check the policy with "opsgate policy check".',
  },
  APPROVAL_REFUSED: {
    status: 403,
    message: '{approver} may not approve {tool}: {reason} (policy {policyId}). Who can approve: {eligible}.',
  },
});
