import { defineErrorCodes } from '../../core/errors/index.ts';

/** Errors of the troubleshoot agent. Messages say what happened and what to do next. */
export const TroubleshootErrors = defineErrorCodes({
  HOST_NOT_FOUND: {
    status: 404,
    message: 'There is no host named "{host}". List hosts with list_hosts (or `opsgate hosts list`) and use one of them.',
  },
  HOST_EXISTS: { status: 409, message: 'A host named "{host}" is already registered. Remove it first or choose another name.' },
  HOST_KEY_CHANGED: {
    status: 409,
    message:
      'HOST KEY CHANGED for {host} ({address}:{port}): expected {expected}, got {actual}. The connection was refused: this can mean a man-in-the-middle attack. If the server was legitimately reinstalled, verify the new key out of band, then remove and re-add the host (`opsgate hosts remove {host}` and `opsgate hosts add …`).',
  },
  HOST_KEY_UNCONFIRMED: {
    status: 409,
    message:
      'The host key of {host} ({address}:{port}) is not confirmed yet. Its fingerprint is {actual}; check it out of band, then confirm it (`opsgate hosts add … --fingerprint {actual}` or confirmHostKey) before connecting.',
  },
  SSH_CONNECT_FAILED: {
    status: 502,
    message: 'Could not open SSH to {host} ({address}:{port}): {detail}. Check that the host is up and the credentials are right.',
  },
  SSH_SECRET_MISSING: {
    status: 500,
    message:
      'The secret "{secret}" for host {host} is missing from the secret store. Store the key or password again (`opsgate hosts add`).',
  },
  SHELL_CLOSED: { status: 502, message: 'The shell on {host} closed ({detail}). Propose the command again to open a new shell.' },
  SHELL_BUSY: {
    status: 409,
    message: 'A command is still running on {host}. Call read_output until it finishes before proposing another command.',
  },
  NO_RUNNING_COMMAND: {
    status: 404,
    message: 'Nothing has run on {host} in this session yet. Propose a command with suggest_ssh_command first.',
  },
  COMMAND_BLOCKED: {
    status: 403,
    message: 'The command was blocked by the {os} command validator ({rule}): {reason}. It was not run; propose a safer command.',
  },
  HOST_INPUT_INVALID: { status: 400, message: '{detail}' },
});
