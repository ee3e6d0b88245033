/** Parses a cobra-style command line: the verb, positionals, `--flag value`, `--flag=value` and boolean flags. */
export function parseArgs(
  argv: readonly string[],
  booleanFlags: readonly string[],
  valueFlags: readonly string[],
  fail: (message: string) => never,
): { command: string; positional: string[]; flags: Map<string, string> } {
  const positional: string[] = [];
  const flags = new Map<string, string>();
  let command = '';
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    if (arg.startsWith('-')) {
      const [name = '', inline] = arg.split(/=(.*)/s, 2);
      if (booleanFlags.includes(name)) flags.set(name, inline ?? 'true');
      else if (valueFlags.includes(name)) flags.set(name, inline ?? argv[++index] ?? fail(`flag needs an argument: ${name}`));
      else fail(`unknown flag: ${name}`);
    } else if (!command) command = arg;
    else positional.push(arg);
  }
  return { command, positional, flags };
}
