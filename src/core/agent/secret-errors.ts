import { defineErrorCodes } from '../errors/index.ts';

export const SecretErrors = defineErrorCodes({
  SECRET_UNREADABLE: {
    status: 500,
    message:
      'The stored secret {name} cannot be decrypted with this key ({keySource}). Set OPSGATE_SECRETS_KEY (or restore secrets.key) to the key it was written with, or store the secret again.',
  },
  SECRETS_KEY_INVALID: { status: 500, message: 'OPSGATE_SECRETS_KEY must be 32 bytes, base64-encoded (e.g. "openssl rand -base64 32").' },
});
