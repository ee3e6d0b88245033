import { defineErrorCodes } from '../errors/index.ts';

/** Codes of the audit key and its anchors. Messages say what to do next. */
export const AuditErrors = defineErrorCodes({
  AUDIT_KEY_INVALID: {
    status: 500,
    message:
      'OPSGATE_AUDIT_KEY is not a usable audit key ({detail}). Set it to at least 32 random bytes, base64 or hex (for example `openssl rand -base64 32`), the same on every replica.',
  },
  AUDIT_KEY_UNREADABLE: {
    status: 500,
    message:
      'The audit key file {file} cannot be used ({detail}). Give it back to the user opsgate runs as (mode 0600), or set OPSGATE_AUDIT_KEY to the same key.',
  },
  AUDIT_CHECKPOINT_FILE_UNWRITABLE: {
    status: 500,
    message:
      'The audit checkpoint file {file} cannot be written ({detail}). Give it back to the user opsgate runs as, or point OPSGATE_AUDIT_CHECKPOINT_FILE at a writable place; the events are sealed and their checkpoints kept in the store meanwhile.',
  },
  AUDIT_ANCHOR_UNREACHABLE: {
    status: 500,
    message:
      'The external audit anchor did not take the checkpoint at event {seq} (OPSGATE_AUDIT_ANCHOR_COMMAND: {detail}). Make the command work from this replica (try it by hand with a line on its standard input); the checkpoint is kept in the store and the next one, which covers it, is sent again.',
  },
  AUDIT_KEY_MISMATCH: {
    status: 500,
    message:
      'The audit key in use (id {keyId}, from {origin}) is not the key that signed this audit log (id {expectedKeyId}). Put the original key back (OPSGATE_AUDIT_KEY, or the file {file}) on every replica; the audit key cannot be rotated in this version.',
  },
});
