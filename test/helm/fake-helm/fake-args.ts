/**
 * Parses a cobra-style command line: the verb (and the sub-verb of `get`, `config` and `search`), positionals, `--flag value`,
 * `--flag=value` and boolean flags, by the flag table `kind` answers from.
 */
export function parseArgs(
  argv: readonly string[],
  kind: (command: string, flag: string) => 'boolean' | 'value' | undefined,
  fail: (message: string) => never,
): { command: string; positional: string[]; flags: Map<string, string> } {
  const positional: string[] = [];
  const flags = new Map<string, string>();
  const command = argv[0] ?? '';
  const table = command === 'get' || command === 'config' || command === 'search' ? `${command} ${argv[1] ?? ''}` : command;
  for (let index = 1; index < argv.length; index++) {
    const arg = argv[index]!;
    if (arg.startsWith('-')) {
      const [name = '', inline] = arg.split(/=(.*)/s, 2);
      const type = kind(table, name);
      if (type === 'boolean') flags.set(name, inline ?? 'true');
      else if (type === 'value') flags.set(name, inline ?? argv[++index] ?? fail(`flag needs an argument: ${name}`));
      else fail(`unknown flag: ${name}`);
    } else positional.push(arg);
  }
  return { command, positional, flags };
}
