import { OpsgateError } from '../core/errors/index.ts';
import { type CliIo, UsageError } from './command.ts';
import { commands } from './commands/index.ts';

function helpText(): string {
  const width = Math.max(...commands.map((c) => c.name.length), 4);
  return [
    'opsgate — a guarded runtime for AI agents that operate real systems',
    '',
    'Usage: opsgate <command> [options]    (opsgate <command> --help for details)',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Environment:',
    '  OPSGATE_DATA_DIR       where data lives (default ./data)',
    '  OPSGATE_DATABASE_URL   PostgreSQL connection string (default: SQLite under the data dir)',
    '  OPSGATE_MODEL          model to use, e.g. openai:gpt-4.1, anthropic:claude-sonnet-4-5, bedrock:…, compatible:llama3',
    '                         (default: the built-in offline interpreter when no model key is set)',
    '',
  ].join('\n');
}

export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const [verb, ...rest] = argv;
  if (verb === undefined || verb === '--help' || verb === '-h' || verb === 'help') {
    io.stdout.write(helpText());
    return verb === undefined ? 2 : 0;
  }
  if (verb === '--version' || verb === '-v') {
    io.stdout.write('opsgate 0.1.0\n');
    return 0;
  }
  const command = commands.find((c) => c.name === verb);
  if (!command) {
    io.stderr.write(`opsgate: unknown command "${verb}"; run "opsgate --help" to list commands\n`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout.write(`${command.usage.trimEnd()}\n`);
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`opsgate ${command.name}: ${error.message}\n`);
      return 2;
    }
    if (OpsgateError.isInstance(error)) {
      io.stderr.write(`opsgate ${command.name}: ${error.message} [${error.code}]\n`);
      return 1;
    }
    io.stderr.write(`opsgate ${command.name}: unexpected failure: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

if (import.meta.main) {
  const code = await main(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
  });
  process.exitCode = code;
}
