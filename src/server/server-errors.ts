import { defineErrorCodes } from '../core/errors/index.ts';

/** Errors the HTTP edge adds to the core table. Messages say what to do next. */
export const ServerErrors = defineErrorCodes({
  LOGIN_FAILED: { status: 401, message: 'The username or password is wrong. Check both and try again.' },
  CSRF_REJECTED: {
    status: 403,
    message:
      'This write came without a valid X-CSRF-Token header (or from another origin). Reload the page and try again; scripts should use an API token.',
  },
  RATE_LIMITED: { status: 429, message: 'Too many attempts. Wait {retryAfter} and try again.' },
  LOGIN_LOCKED: {
    status: 429,
    message:
      'Too many failed sign-ins for {username}. Wait {retryAfter} seconds and try again, or ask an administrator to reset the password.',
  },
  SESSION_QUOTA: {
    status: 429,
    message:
      'You have {detail}. Continue one of your sessions instead of starting another, or wait {retryAfter} seconds; an admin can raise OPSGATE_SESSION_QUOTA.',
  },
  TOKEN_SCOPE_MISSING: {
    status: 403,
    message: 'This API token lacks the "{scope}" scope. Issue a token with it (e.g. "--scope use,approve") and use that one.',
  },
  ROUTE_NOT_FOUND: { status: 404, message: 'There is no endpoint {method} {url}. See /docs for the API.' },
  INVALID_REQUEST: { status: 400, message: 'The request is invalid: {detail}' },
  AUDIT_UNAVAILABLE: { status: 503, message: 'The audit log is not available in this server. Run "opsgate audit verify" instead.' },
  APPROVAL_NOT_FOUND: {
    status: 404,
    message:
      'No request with that id waits for approval in the sessions you may see (it may have been decided already). List what waits with GET /api/approvals or "opsgate approvals list".',
  },
  STORE_FULL: {
    status: 507,
    message:
      "The database's disk is full, so this change was not stored. Free disk space (or grow the volume), then try again; what was stored before is intact.",
  },
  HOSTS_UNAVAILABLE: { status: 404, message: 'No agent in this server manages hosts.' },
  INTERNAL: {
    status: 500,
    message: 'Something went wrong on the server (reference {reference}). Try again; if it persists, tell an admin the reference.',
  },
});
