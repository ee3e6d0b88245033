import { agents } from '../../agents/index.ts';
import { SYSTEM_ACTOR } from '../../core/audit/index.ts';
import { type ChangedBy, LOCAL_ADMIN } from '../../core/identity/identity-audit.ts';
import { MAX_TOKEN_TTL_MS, TOKEN_SCOPES, USER_ROLES, UserRepository } from '../../core/identity/users.ts';
import { openStore, resolveDataDir } from '../../core/store/index.ts';
import { type CliCommand, type CliIo, UsageError } from '../command.ts';
import { parseCommandArgs } from '../parse-args.ts';

async function readStdin(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
  return text.replace(/\r?\n$/, '');
}

const ACTIONS = ['add', 'token', 'tokens', 'list', 'passwd', 'role', 'disable', 'enable'] as const;
type Action = (typeof ACTIONS)[number];

/** `30d`, `12h`, `1y` → milliseconds (at most a year). */
function parseExpiry(text: string): number {
  const match = /^(\d+)([hdy])$/.exec(text.trim());
  if (!match) throw new UsageError(`--expires must look like 30d, 12h or 1y, got "${text}"`);
  const unit = { h: 3_600_000, d: 86_400_000, y: 365 * 86_400_000 }[match[2] as 'h' | 'd' | 'y'];
  const ms = Number(match[1]) * unit;
  if (ms <= 0 || ms > MAX_TOKEN_TTL_MS) throw new UsageError(`--expires must be more than zero and at most 1y, got "${text}"`);
  return ms;
}

function parseList(option: string, text: string, allowed: readonly string[]): string[] {
  const items = text.split(',').map((item) => item.trim());
  const unknown = items.filter((item) => !allowed.includes(item));
  if (unknown.length > 0 || items.length === 0) throw new UsageError(`--${option} takes some of ${allowed.join(',')}, got "${text}"`);
  return items;
}

/** Whoever can open the store administers it; the audit names the CLI and the OS account. */
function localAdmin(io: CliIo): ChangedBy {
  return { actor: SYSTEM_ACTOR, username: LOCAL_ADMIN, via: `cli (os user ${io.env.USER ?? 'unknown'})` };
}

export const usersCommand: CliCommand = {
  name: 'users',
  summary: 'Manage people and API tokens (users add | token | tokens | list | passwd | role | disable | enable)',
  usage: `Usage:
  opsgate users add NAME [--role user|approver|admin] [--password-stdin]
  opsgate users token NAME [--name LABEL] [--expires 90d] [--scope use,approve,admin]
  opsgate users tokens NAME
  opsgate users list
  opsgate users passwd NAME --password-stdin
  opsgate users role NAME --role user|approver|admin[,…]
  opsgate users disable NAME
  opsgate users enable NAME

add     creates a person (default role user); with --password-stdin the password (≥ 8 characters)
        is read from standard input, otherwise the person can sign in only with API tokens.
token   issues an API token for scripts ("Authorization: Bearer …"); it is printed once and stored
        only as its sha256. --expires (default 90d, at most 1y); --scope (default use): use =
        sessions and requests, approve = decide others' calls, admin = users, hosts, tokens.
        The token records "local-admin" as its issuer, so its decisions name that and a borrowed
        credential cannot approve; a person issues their own token in the web UI or POST /api/tokens.
tokens  lists a person's tokens with scope, expiry and issuer (never the secret).
list    prints every person with their roles.
passwd  sets a password (from standard input) and ends every login session of the person; their
        API tokens stay valid (revoke them separately).
role    sets the person's roles (open connections are checked again).
disable ends every session, revokes every token and refuses sign-in; enable lets them sign in again.
Every change is written to the audit log as done by the local administrator.`,
  async run(args: readonly string[], io: CliIo): Promise<number> {
    const [actionText, ...rest] = args;
    if (!(ACTIONS as readonly string[]).includes(actionText ?? ''))
      throw new UsageError(`expected one of ${ACTIONS.join(', ')} (see opsgate users --help)`);
    const action = actionText as Action;
    const { values, positionals } = parseCommandArgs(
      rest,
      {
        role: { type: 'string' },
        'password-stdin': { type: 'boolean' },
        name: { type: 'string' },
        expires: { type: 'string' },
        scope: { type: 'string' },
      },
      true,
    );
    if (action !== 'list' && positionals.length !== 1) throw new UsageError(`users ${action} needs exactly one NAME`);
    if (action === 'list' && positionals.length > 0) throw new UsageError('users list takes no NAME');
    const roles = values.role !== undefined ? parseList('role', values.role, USER_ROLES) : undefined;
    if (action === 'add' && roles && roles.length !== 1)
      throw new UsageError('users add takes one --role; change it later with "users role"');
    if (action !== 'add' && action !== 'role' && roles) throw new UsageError('--role belongs to "users add" and "users role"');
    if (action === 'role' && !roles) throw new UsageError('users role needs --role');
    if (action !== 'add' && action !== 'passwd' && values['password-stdin'])
      throw new UsageError('--password-stdin belongs to "users add" and "users passwd"');
    if (action === 'passwd' && !values['password-stdin']) throw new UsageError('users passwd reads the password with --password-stdin');
    if (action !== 'token' && (values.name !== undefined || values.expires !== undefined || values.scope !== undefined))
      throw new UsageError('--name, --expires and --scope belong to "users token"');
    const expiresInMs = values.expires !== undefined ? parseExpiry(values.expires) : undefined;
    const scopes = values.scope !== undefined ? parseList('scope', values.scope, TOKEN_SCOPES) : undefined;
    const password = values['password-stdin'] ? await readStdin(io.stdin) : undefined;
    const store = await openStore({
      dataDir: resolveDataDir(io.env.OPSGATE_DATA_DIR),
      databaseUrl: io.env.OPSGATE_DATABASE_URL ?? '',
      // Every agent's migrations, so a store the server already migrated opens cleanly.
      migrations: agents.flatMap((agent) => agent.migrations ?? []),
    });
    try {
      const users = new UserRepository(store);
      const by = localAdmin(io);
      const name = positionals[0]!;
      if (action === 'add') {
        const user = await users.create({ username: name, roles: roles ?? ['user'], ...(password !== undefined ? { password } : {}) }, by);
        io.stdout.write(
          `created ${user.username} (${user.roles.join(', ')})${user.hasPassword ? '' : ' without a password: issue a token with "opsgate users token"'}\n`,
        );
      } else if (action === 'token') {
        const issued = await users.createToken(name, values.name ?? 'cli', {
          by,
          ...(scopes ? { scopes } : {}),
          ...(expiresInMs ? { expiresInMs } : {}),
        });
        io.stderr.write(
          `token "${issued.name}" for ${name}, scope ${issued.scopes.join(',')}, expires ${issued.expiresAt} (shown once; store it now):\n`,
        );
        io.stdout.write(`${issued.token}\n`);
      } else if (action === 'tokens') {
        const user = await users.requireByName(name);
        for (const token of await users.listTokens(user.id))
          io.stdout.write(
            `${token.id}\t${token.name}\t${token.scopes.join(',')}\texpires ${token.expiresAt ?? 'never'}\tissued by ${token.issuedBy ?? 'unknown'}\t${token.lastUsedAt ? `last used ${token.lastUsedAt}` : 'never used'}\n`,
          );
      } else if (action === 'passwd') {
        await users.setPassword(name, password ?? '', by);
        io.stdout.write(`password of ${name} changed; every login session of ${name} ended (API tokens stay valid)\n`);
      } else if (action === 'role') {
        const user = await users.setRoles(name, roles ?? [], by);
        io.stdout.write(`${user.username} now has ${user.roles.join(', ')}\n`);
      } else if (action === 'disable') {
        await users.disable(name, by);
        io.stdout.write(`${name} is disabled: sessions ended, tokens revoked\n`);
      } else if (action === 'enable') {
        await users.enable(name, by);
        io.stdout.write(`${name} may sign in again\n`);
      } else {
        for (const user of await users.list())
          io.stdout.write(
            `${user.username}\t${user.roles.join(',')}\t${user.hasPassword ? 'password' : 'tokens only'}\t${user.createdAt}${user.disabled ? '\tdisabled' : ''}\n`,
          );
      }
      return 0;
    } finally {
      await store.close();
    }
  },
};
