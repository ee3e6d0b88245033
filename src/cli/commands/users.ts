import { agents } from '../../agents/index.ts';
import { USER_ROLES, UserRepository } from '../../core/identity/users.ts';
import { openStore, resolveDataDir } from '../../core/store/index.ts';
import { type CliCommand, type CliIo, UsageError } from '../command.ts';
import { parseCommandArgs } from '../parse-args.ts';

async function readStdin(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
  return text.replace(/\r?\n$/, '');
}

export const usersCommand: CliCommand = {
  name: 'users',
  summary: 'Manage people and API tokens (users add | token | list)',
  usage: `Usage:
  opsgate users add NAME [--role user|approver|admin] [--password-stdin]
  opsgate users token NAME [--name LABEL]
  opsgate users list

add    creates a person (default role user); with --password-stdin the password (≥ 8 characters)
       is read from standard input, otherwise the person can sign in only with API tokens.
token  issues an API token for scripts ("Authorization: Bearer …"); it is printed once and
       stored only as its sha256.
list   prints every person with their roles.`,
  async run(args: readonly string[], io: CliIo): Promise<number> {
    const [action, ...rest] = args;
    if (action !== 'add' && action !== 'token' && action !== 'list')
      throw new UsageError('expected "add", "token" or "list" (see opsgate users --help)');
    const { values, positionals } = parseCommandArgs(
      rest,
      { role: { type: 'string' }, 'password-stdin': { type: 'boolean' }, name: { type: 'string' } },
      true,
    );
    if (action !== 'list' && positionals.length !== 1) throw new UsageError(`users ${action} needs exactly one NAME`);
    if (action === 'list' && positionals.length > 0) throw new UsageError('users list takes no NAME');
    if (values.role !== undefined && !(USER_ROLES as readonly string[]).includes(values.role))
      throw new UsageError(`--role must be one of ${USER_ROLES.join(', ')}, got "${values.role}"`);
    if (action !== 'add' && (values.role !== undefined || values['password-stdin']))
      throw new UsageError('--role and --password-stdin belong to "users add"');
    if (action !== 'token' && values.name !== undefined) throw new UsageError('--name belongs to "users token"');
    const password = values['password-stdin'] ? await readStdin(io.stdin) : undefined;
    const store = await openStore({
      dataDir: resolveDataDir(io.env.OPSGATE_DATA_DIR),
      databaseUrl: io.env.OPSGATE_DATABASE_URL ?? '',
      // Every agent's migrations, so a store the server already migrated opens cleanly.
      migrations: agents.flatMap((agent) => agent.migrations ?? []),
    });
    try {
      const users = new UserRepository(store);
      if (action === 'add') {
        const user = await users.create({
          username: positionals[0]!,
          roles: [values.role ?? 'user'],
          ...(password !== undefined ? { password } : {}),
        });
        io.stdout.write(
          `created ${user.username} (${user.roles.join(', ')})${user.hasPassword ? '' : ' without a password: issue a token with "opsgate users token"'}\n`,
        );
      } else if (action === 'token') {
        const issued = await users.createToken(positionals[0]!, values.name ?? 'cli');
        io.stderr.write(`token "${issued.name}" for ${positionals[0]} (shown once; store it now):\n`);
        io.stdout.write(`${issued.token}\n`);
      } else {
        for (const user of await users.list())
          io.stdout.write(
            `${user.username}\t${user.roles.join(',')}\t${user.hasPassword ? 'password' : 'tokens only'}\t${user.createdAt}\n`,
          );
      }
      return 0;
    } finally {
      await store.close();
    }
  },
};
