import type { CliCommand } from '../command.ts';

/** Every verb of the CLI, in the order `opsgate --help` lists them. One line per command. */
export const commands: readonly CliCommand[] = [
];
