/** Streams a command writes to; tests pass their own. */
export interface CliIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly stdin: NodeJS.ReadableStream;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** One verb of the `opsgate` command line (`opsgate NAME …`). */
export interface CliCommand {
  readonly name: string;
  /** One line for `opsgate --help`. */
  readonly summary: string;
  /** Full text for `opsgate NAME --help`. */
  readonly usage: string;
  /** Returns the exit code: 0 ok, 2 usage error, others as the command documents. */
  run(args: readonly string[], io: CliIo): Promise<number>;
}

/** A bad argument: main prints `opsgate: <message>` on one line and exits 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
