import { userInfo } from 'node:os';
import { type Identity, identityOf } from '../core/identity/index.ts';
import type { UserRepository } from '../core/identity/users.ts';
import { type CliIo, UsageError } from './command.ts';

/** How the command line knows who acts: a proven API token, or local mode on the data store. */
export interface CliIdentity {
  readonly identity: Identity;
  readonly mode: 'token' | 'local';
}

/** The issuer recorded for an identity that local mode asserts: who ran the command, on which machine account. */
function localIssuer(env: CliIo['env']): string {
  let account = env.USER ?? 'unknown';
  try {
    account = userInfo().username;
  } catch {
    // No passwd entry (a container's arbitrary uid): keep $USER.
  }
  return `local:${account}`;
}

/**
 * Who acts at the command line. With `OPSGATE_TOKEN` the person is proven by an API token (the
 * same check the server makes) and `--user` may only repeat that name. Without it the command
 * runs in local mode: whoever can open the data store can act as `--user`, so the identity is
 * asserted, not proven — the audit names the machine account as its issuer, and the policy lets
 * such an identity confirm its own calls but never approve another person's
 * (`no-approval-with-a-borrowed-credential`).
 */
export async function resolveCliIdentity(
  io: CliIo,
  users: UserRepository,
  requested: string | undefined,
  options: { readonly createIfMissing?: boolean } = {},
): Promise<CliIdentity> {
  const token = io.env.OPSGATE_TOKEN;
  if (token) {
    const proven = (await users.authenticateToken(token))?.identity;
    if (!proven)
      throw new UsageError(
        'OPSGATE_TOKEN is not a valid API token (revoked, expired or mistyped); issue a new one with "opsgate users token NAME"',
      );
    if (requested !== undefined && requested !== proven.username)
      throw new UsageError(
        `OPSGATE_TOKEN belongs to ${proven.username}; --user cannot change who you are (unset OPSGATE_TOKEN for local mode)`,
      );
    return { identity: { ...proven, channel: 'cli' }, mode: 'token' };
  }
  const username = requested ?? io.env.OPSGATE_USER ?? io.env.USER ?? 'operator';
  const existing = await users.findByName(username);
  if (!existing && !options.createIfMissing)
    throw new UsageError(`no user named "${username}"; create one with "opsgate users add ${username}"`);
  const user = existing ?? (await users.create({ username, roles: ['user'] }));
  if (!existing) io.stderr.write(`opsgate: created local user "${username}" (role user)\n`);
  const identity = identityOf(user, { channel: 'cli', issuedBy: localIssuer(io.env) });
  if (!identity)
    throw new UsageError(`the account "${username}" is disabled; ask an administrator to enable it ("opsgate users enable ${username}")`);
  return { identity, mode: 'local' };
}

/** One line saying what local mode may do, for commands that decide. */
export function localModeNotice(identity: Identity): string {
  return `opsgate: local mode — acting as ${identity.username} without OPSGATE_TOKEN: you may confirm your own calls, not approve another person's (set OPSGATE_TOKEN to an API token)\n`;
}
