import { defineErrorCodes } from '../../core/errors/index.ts';

/** Errors of the Slack and Teams integrations. Messages say what to do next. */
export const IntegrationErrors = defineErrorCodes({
  SLACK_NOT_CONFIGURED: {
    status: 404,
    message: 'Slack approvals are not set up in this opsgate. An admin sets them up under Admin → Chat approvals.',
  },
  SLACK_SIGNATURE_INVALID: {
    status: 401,
    message:
      'This request does not carry a valid Slack signature (wrong signing secret, a changed body, a timestamp older than 5 minutes, or a replay). Nothing was decided.',
  },
  SLACK_PAYLOAD_INVALID: { status: 400, message: 'This Slack request is not a button press opsgate knows: {detail}. Nothing was decided.' },
  CHAT_SETTINGS_INVALID: { status: 400, message: '{detail}' },
  CHAT_TEST_FAILED: {
    status: 502,
    message: 'The test message was not delivered: {detail}. Check the settings above and send it again.',
  },
  CHAT_LINK_CODE_INVALID: {
    status: 400,
    message:
      'That link code is wrong, expired or used up ({detail}). Ask for a new one (POST /api/me/chat/slack/link) and enter the code Slack shows you.',
  },
  CHAT_LINK_NEEDS_OWN_SIGN_IN: {
    status: 403,
    message:
      'Only the person themselves links their Slack account, signed in with their own login or token (this credential was issued by {issuer}).',
  },
});
