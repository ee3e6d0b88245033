import { describe, expect, it } from 'vitest';
import type { SimpleCommand } from '../validator/index.ts';
import { embeddedShellCommands } from './embedded-commands.ts';

function command(program: string, ...args: string[]): SimpleCommand {
  return {
    name: program,
    program,
    nameIsStatic: true,
    args: args.map((text) => ({ text, static: true })),
    redirects: [],
    assignments: [],
    via: [],
    segment: '',
  };
}

describe('shell commands inside interpreter code', () => {
  it.each([
    [command('python3', '-c', 'import os; os.system("rm -rf /var/lib/mysql")'), ['rm -rf /var/lib/mysql']],
    [command('python3', '-c', "import subprocess; subprocess.run('kill -9 1', shell=True)"), ['kill -9 1']],
    [command('perl', '-e', 'system("sort -o /etc/shadow /dev/null")'), ['sort -o /etc/shadow /dev/null']],
    [command('ruby', '-e', 'puts `reboot`'), ['reboot']],
    [command('awk', 'BEGIN { system("rm -f /tmp/x") }'), ['rm -f /tmp/x']],
    [command('python3', '-c', 'print("hello")'), []],
  ])('%#', (input, expected) => {
    expect(embeddedShellCommands(input)).toEqual(expected);
  });
});
