import { defineErrorCodes } from '../../core/errors/index.ts';

export const OidcErrors = defineErrorCodes({
  OIDC_LOGIN_FAILED: {
    status: 401,
    message: 'Single sign-on failed: {detail}. Start again from the login page; if it keeps failing, tell an admin.',
  },
  OIDC_STATE_MISMATCH: {
    status: 401,
    message:
      'This sign-on was not started in this browser (its state does not match the cookie set when it began). Start again from the login page in this browser.',
  },
  OIDC_ACCOUNT_CONFLICT: {
    status: 409,
    message:
      'A local account named {username} exists and is not linked to this sign-on identity, so it was not taken over. Ask an admin to rename one of them.',
  },
});
