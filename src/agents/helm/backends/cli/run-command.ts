import { execFile } from 'node:child_process';

interface RunOptions {
  /** Kill the process after this many milliseconds (SIGTERM). */
  readonly timeoutMs: number;
  /** Aborting kills the process (SIGTERM), so that a cancelled tool call never leaves `helm` running. */
  readonly signal?: AbortSignal;
  readonly env: NodeJS.ProcessEnv;
}

/** How a command ended badly: its stderr and a one-line reason (exit code, signal, timeout or abort). */
export class CommandFailed extends Error {
  readonly stderr: string;
  readonly killed: boolean;
  constructor(message: string, stderr: string, killed: boolean) {
    super(message);
    this.stderr = stderr;
    this.killed = killed;
  }
}

/**
 * Runs one `helm` or `kubectl` command and resolves with its stdout, or rejects with
 * `CommandFailed`. The CLI backend takes any runner of this shape, so that tests can answer
 * in-process where the process boundary itself is not under test.
 */
export type CommandRunner = (file: string, args: readonly string[], options: RunOptions) => Promise<string>;

/** The real runner: `execFile`, no shell, 32 MiB of output at most. */
export const execCommand: CommandRunner = (file, args, options) =>
  new Promise((resolve, reject) => {
    execFile(
      file,
      [...args],
      {
        timeout: options.timeoutMs,
        maxBuffer: 32 * 1024 * 1024,
        env: options.env,
        shell: false,
        ...(options.signal ? { signal: options.signal } : {}),
      },
      (error, stdout, stderr) => {
        if (!error) resolve(stdout);
        else {
          const killed = Boolean((error as { killed?: boolean }).killed) || error.name === 'AbortError';
          reject(new CommandFailed(error.message, stderr, killed));
        }
      },
    );
  });
