import { StringDecoder } from 'node:string_decoder';
import { cursorLine, detectPagerPrompt, detectShellPrompt } from '../../../core/text/index.ts';
import { TroubleshootErrors } from '../errors.ts';
import { newNonce, type ShellFamily, type WrappedCommand, wrapCommand } from './command-markers.ts';

/** The byte pipe a `ShellSession` drives: an ssh2 PTY channel in production, a fake in unit tests. */
export interface ShellTransport {
  write(data: string): void;
  onData(listener: (chunk: Buffer | string) => void): void;
  onClose(listener: (reason: string) => void): void;
  close(): void;
}

export interface ShellSessionOptions {
  /** Host name, for error messages. */
  readonly host: string;
  /** Completion detection. Default `posix`; `prompt` = prompt detection only (AR-06 fallback). */
  readonly family?: ShellFamily;
  /** Quiet time before the cursor line is checked for a pager or a prompt. Default 150 ms. */
  readonly idleMs?: number;
  /** Raw output kept per command, in characters. Default 64 MiB; beyond it the middle is dropped. */
  readonly maxBufferedChars?: number;
  /** Nonces; injectable for tests. */
  readonly generateNonce?: () => string;
  readonly now?: () => number;
}

/** What one command produced; `output` is raw terminal text (ANSI codes kept). */
export interface CommandOutcome {
  readonly status: 'completed' | 'still_running';
  readonly command: string;
  /** The exact text written to the shell (the command inside its completion markers). */
  readonly written: string;
  /** Exit status when the shell reported one (null for the prompt fallback or while running). */
  readonly exitStatus: number | null;
  /** All output of the command so far (raw). */
  readonly output: string;
  /** Output produced since the previous outcome of this command was returned (raw). */
  readonly newOutput: string;
  readonly durationMs: number;
  /** How many times a pager prompt was answered with `q` (AR-07). */
  readonly pagerQuits: number;
  readonly startedAt: number;
}

interface Running {
  readonly command: string;
  readonly wrapped: WrappedCommand;
  readonly startedAt: number;
  endedAt: number;
  /** Raw text since the command was written. */
  raw: string;
  /** Index in `raw` where the command's own output starts (after the begin marker line). */
  outputStart: number;
  /** Characters of the output already handed out. */
  delivered: number;
  exitStatus: number | null;
  endIndex: number;
  done: boolean;
  pagerQuits: number;
  pagerAnsweredAt: number;
  waiters: Array<() => void>;
}

/**
 * One long-lived interactive shell on a host (per opsgate session and host). Commands are written
 * to the visible PTY (AR-08); completion is found by per-command random markers, or by the
 * shell prompt when markers are not available (AR-06). Pager prompts get `q` (AR-07). Every byte
 * received goes to the output listener (the terminal view).
 */
export class ShellSession {
  readonly #transport: ShellTransport;
  readonly #host: string;
  #family: ShellFamily;
  readonly #idleMs: number;
  readonly #maxChars: number;
  readonly #nonce: () => string;
  readonly #now: () => number;
  readonly #decoder = new StringDecoder('utf8');
  #outputListener: ((chunk: string) => void) | undefined;
  #current: Running | undefined;
  #last: Running | undefined;
  #idleTimer: NodeJS.Timeout | undefined;
  #closed: string | undefined;
  /** Output while no command runs (banner, prompts), kept short for prompt detection. */
  #idleTail = '';

  constructor(transport: ShellTransport, options: ShellSessionOptions) {
    this.#transport = transport;
    this.#host = options.host;
    this.#family = options.family ?? 'posix';
    this.#idleMs = options.idleMs ?? 150;
    this.#maxChars = options.maxBufferedChars ?? 64 * 1024 * 1024;
    this.#nonce = options.generateNonce ?? newNonce;
    this.#now = options.now ?? Date.now;
    transport.onData((chunk) => this.#receive(typeof chunk === 'string' ? chunk : this.#decoder.write(chunk)));
    transport.onClose((reason) => this.#onClose(reason));
  }

  get family(): ShellFamily {
    return this.#family;
  }

  get closed(): boolean {
    return this.#closed !== undefined;
  }

  /** True while a command has not finished (its output can be read with `readOutput`). */
  get busy(): boolean {
    return this.#current !== undefined && !this.#current.done;
  }

  /** Where every received byte goes (decoded as UTF-8), e.g. `terminal.output` events. */
  setOutputListener(listener: ((chunk: string) => void) | undefined): void {
    this.#outputListener = listener;
  }

  /** Switches completion detection, e.g. to `prompt` when markers are not echoed by an unknown shell. */
  setFamily(family: ShellFamily): void {
    this.#family = family;
  }

  /** Waits until the shell is quiet and shows a prompt (or `timeoutMs` passes). Returns the prompt kind seen. */
  async waitForPrompt(timeoutMs = 5000): Promise<string | undefined> {
    const deadline = this.#now() + timeoutMs;
    let lastLength = -1;
    while (this.#now() < deadline && !this.#closed) {
      const kind = detectShellPrompt(this.#idleTail);
      if (kind && this.#idleTail.length === lastLength) return kind;
      lastLength = this.#idleTail.length;
      await sleep(this.#idleMs);
    }
    return detectShellPrompt(this.#idleTail);
  }

  /**
   * Writes the command to the shell and waits until it finishes or `softTimeoutMs` passes; then
   * the outcome is `still_running` and `readOutput` continues (AR-12).
   */
  async run(command: string, options: { softTimeoutMs: number; signal?: AbortSignal }): Promise<CommandOutcome> {
    this.#assertOpen();
    if (this.busy) throw TroubleshootErrors.SHELL_BUSY({ host: this.#host });
    const wrapped = wrapCommand(command, this.#family, this.#nonce());
    const running: Running = {
      command,
      wrapped,
      startedAt: this.#now(),
      endedAt: 0,
      raw: '',
      outputStart: -1,
      delivered: 0,
      exitStatus: null,
      endIndex: -1,
      done: false,
      pagerQuits: 0,
      pagerAnsweredAt: -1,
      waiters: [],
    };
    this.#current = running;
    this.#last = running;
    this.#idleTail = '';
    this.#transport.write(wrapped.text);
    return this.#waitFor(running, options.softTimeoutMs, options.signal);
  }

  /** Waits up to `waitMs` more for the running (or last) command, returning output not handed out yet. */
  async readOutput(options: { waitMs: number; signal?: AbortSignal }): Promise<CommandOutcome> {
    const running = this.#current ?? this.#last;
    if (!running) throw TroubleshootErrors.NO_RUNNING_COMMAND({ host: this.#host });
    if (!running.done) this.#assertOpen();
    return this.#waitFor(running, options.waitMs, options.signal);
  }

  /** Gives up on the running command (it keeps running on the host); the shell takes new commands. */
  abandonCurrent(): void {
    const running = this.#current;
    if (running && !running.done) this.#finish(running, running.raw.length, null);
  }

  /** Sends Ctrl-C to the running command. */
  interrupt(): void {
    if (!this.#closed) this.#transport.write('\x03');
  }

  close(): void {
    this.#transport.close();
    this.#onClose('closed by opsgate');
  }

  async #waitFor(running: Running, waitMs: number, signal?: AbortSignal): Promise<CommandOutcome> {
    if (!running.done && waitMs > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(finish, waitMs);
        const onAbort = () => finish();
        function finish() {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve();
        }
        running.waiters.push(finish);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    }
    if (this.#closed && !running.done) {
      throw TroubleshootErrors.SHELL_CLOSED({ host: this.#host, detail: this.#closed });
    }
    return this.#outcome(running);
  }

  #outcome(running: Running): CommandOutcome {
    const output = this.#outputOf(running);
    const newOutput = output.slice(running.delivered);
    running.delivered = output.length;
    return {
      status: running.done ? 'completed' : 'still_running',
      command: running.command,
      written: running.wrapped.text,
      exitStatus: running.exitStatus,
      output,
      newOutput,
      durationMs: (running.done ? running.endedAt : this.#now()) - running.startedAt,
      pagerQuits: running.pagerQuits,
      startedAt: running.startedAt,
    };
  }

  #outputOf(running: Running): string {
    if (running.outputStart < 0) return '';
    const end = running.endIndex >= 0 ? running.endIndex : running.raw.length;
    return running.raw.slice(running.outputStart, end);
  }

  #receive(chunk: string): void {
    if (chunk.length === 0) return;
    this.#outputListener?.(chunk);
    const running = this.#current;
    if (!running || running.done) {
      this.#idleTail = (this.#idleTail + chunk).slice(-4096);
      return;
    }
    const searchFrom = Math.max(0, running.raw.length - 128);
    running.raw += chunk;
    this.#trim(running);
    this.#scanMarkers(running, searchFrom);
    if (!running.done) this.#armIdle(running);
  }

  /** Keeps memory bounded for endless output: drops the middle, keeping the start and a long tail. */
  #trim(running: Running): void {
    if (running.raw.length <= this.#maxChars || running.outputStart < 0) return;
    const keepHead = running.outputStart + 1024 * 1024;
    const cut = running.raw.length - this.#maxChars / 2;
    if (cut <= keepHead) return;
    const dropped = cut - keepHead;
    running.raw = `${running.raw.slice(0, keepHead)}\n…[${dropped} characters dropped from memory]…\n${running.raw.slice(cut)}`;
    running.delivered = Math.min(running.delivered, keepHead - running.outputStart);
  }

  #scanMarkers(running: Running, searchFrom: number): void {
    const { begin, end } = running.wrapped;
    if (!begin || !end) return;
    if (running.outputStart < 0) {
      const match = begin.exec(running.raw.slice(Math.max(0, searchFrom - 64)));
      if (!match) return;
      const at = Math.max(0, searchFrom - 64) + match.index + match[0].length;
      const newline = running.raw.indexOf('\n', at);
      if (newline < 0) return;
      running.outputStart = newline + 1;
    }
    const from = Math.max(running.outputStart, searchFrom - 64);
    const match = end.exec(running.raw.slice(from));
    if (!match) return;
    let endIndex = from + match.index;
    // The marker is printed after a newline of its own; that newline is not the command's output.
    if (running.raw.endsWith('\r\n', endIndex)) endIndex -= 2;
    else if (running.raw.endsWith('\n', endIndex)) endIndex -= 1;
    this.#finish(running, Math.max(running.outputStart, endIndex), Number(match[1]));
  }

  #armIdle(running: Running): void {
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => this.#onIdle(running), this.#idleMs);
    this.#idleTimer.unref?.();
  }

  /** The output went quiet: answer a pager, or (prompt family) take a prompt as the end. */
  #onIdle(running: Running): void {
    if (running.done || this.#closed) return;
    const tail = running.raw.slice(-4096);
    if (detectPagerPrompt(tail) && running.pagerAnsweredAt !== running.raw.length) {
      running.pagerAnsweredAt = running.raw.length;
      running.pagerQuits += 1;
      this.#transport.write('q');
      return;
    }
    if (running.wrapped.end) return;
    // Prompt fallback: the first line is the echo of the command; output follows it.
    if (running.outputStart < 0) {
      const newline = running.raw.indexOf('\n');
      if (newline < 0) return;
      running.outputStart = newline + 1;
    }
    if (running.raw.length > running.outputStart && detectShellPrompt(tail)) {
      const line = cursorLine(tail);
      const lastNewline = running.raw.lastIndexOf('\n');
      let endIndex = Math.max(lastNewline, running.outputStart);
      if (running.raw[endIndex - 1] === '\r') endIndex -= 1;
      this.#finish(running, endIndex, null);
      this.#idleTail = line;
    }
  }

  #finish(running: Running, endIndex: number, exitStatus: number | null): void {
    running.endIndex = endIndex;
    running.exitStatus = exitStatus;
    running.done = true;
    running.endedAt = this.#now();
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#idleTail = running.raw.slice(-4096);
    for (const wake of running.waiters.splice(0)) wake();
  }

  #onClose(reason: string): void {
    if (this.#closed) return;
    this.#closed = reason;
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    const running = this.#current;
    if (running) for (const wake of running.waiters.splice(0)) wake();
  }

  #assertOpen(): void {
    if (this.#closed) throw TroubleshootErrors.SHELL_CLOSED({ host: this.#host, detail: this.#closed });
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
