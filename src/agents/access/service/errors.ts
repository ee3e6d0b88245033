import { defineErrorCodes } from '../../../core/errors/index.ts';

/**
 * Errors of the access-catalog service. The HTTP body is `{ "detail": message, "code": code }`.
 * Missing credentials are 401 (the tools say "Authentication failed"); acting on another
 * person's account is 403; an unknown `access_name` is 404, as the tools' "Access not found" row implies.
 */
export const AccessServiceErrors = defineErrorCodes({
  ACCESS_ADMIN_KEY_INVALID: {
    status: 401,
    message: 'Missing or invalid X-Admin-Key header. Send the admin key the service was started with (ACCESS_ADMIN_KEY).',
  },
  ACCESS_USERNAME_MISSING: { status: 401, message: 'Missing X-Username header. Send the username of the account you act for.' },
  ACCESS_FORBIDDEN: {
    status: 403,
    message: 'User "{username}" may only operate on their own account, not on user {userId}.',
  },
  ACCESS_NOT_ELIGIBLE: {
    status: 403,
    message:
      'You don\'t have permission for this operation: {accessName} is for the {accessTeams} team(s) and user "{username}" is in {userTeams}. Ask for an access of your teams.',
  },
  ACCESS_DURATION_TOO_LONG: {
    status: 400,
    message:
      'duration_days {durationDays} exceeds the maximum of {accessName}: {renewalPeriod} days. Ask for {renewalPeriod} days or fewer.',
  },
  ACCESS_USER_NOT_FOUND: { status: 404, message: 'User not found: there is no catalog user {user}.' },
  ACCESS_NOT_FOUND: { status: 404, message: 'Access not found: {accessName}. List the catalog with GET /admin/accesses.' },
  ACCESS_GRANT_NOT_FOUND: { status: 404, message: 'User {userId} holds no active {accessName} grant; nothing to revoke.' },
  ACCESS_ALREADY_GRANTED: { status: 409, message: 'User "{username}" already has access {accessName} (granted {assignedAt}).' },
  ACCESS_NAME_TAKEN: { status: 409, message: 'An access named {accessName} already exists. Pick another name.' },
  ACCESS_USERNAME_TAKEN: { status: 409, message: 'A catalog user named "{username}" already exists.' },
  ACCESS_INVALID_LIMIT: { status: 400, message: 'limit must be a whole number from 1 to 100, got "{value}".' },
  ACCESS_INVALID_OFFSET: { status: 400, message: 'offset must be a whole number of 0 or more, got "{value}".' },
  ACCESS_INVALID_ID: { status: 400, message: '{field} must be a positive integer, got "{value}".' },
  ACCESS_INVALID_FIELD: { status: 400, message: '{detail}' },
  ACCESS_SERVICE_FAILED: {
    status: 500,
    message: 'The access service failed on this request; try again, and check its log if it keeps failing.',
  },
});
