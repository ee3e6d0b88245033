import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { errorFromJson, SandboxErrors } from '../errors.ts';
import type { QueryResult, SqlParam } from './engine.ts';
import type { ReadBudget } from './read-budget.ts';
import type { ReadReply, ReadRequest } from './read-worker.ts';

const WORKER = fileURLToPath(new URL('./read-worker.ts', import.meta.url));
/** How long a read process may take to open the file: the time budget starts only after that, so this bounds a start that hangs. */
const START_LIMIT_MS = 60_000;

interface Pending {
  readonly request: ReadRequest;
  readonly resolve: (result: QueryResult) => void;
  readonly reject: (error: Error) => void;
  /** Set when the read is sent: its time budget does not count the start of the read process. */
  timer?: NodeJS.Timeout;
}

/**
 * Runs read-path statements in a child process under a time, row and byte budget. A read past its time
 * is stopped by killing the child (SQLite cannot be interrupted from JavaScript); the next read
 * starts a fresh one. The child opens the file read-only, with the same authorizer as in-process reads.
 * The time budget is the statement's: it starts when the read is sent to a child that has opened the
 * file, so starting a process on a busy machine does not use it up.
 */
export class BudgetedReader {
  readonly path: string;
  readonly budget: ReadBudget;
  #child: ChildProcess | undefined;
  #ready = false;
  #nextId = 1;
  readonly #pending = new Map<number, Pending>();

  constructor(path: string, budget: ReadBudget) {
    this.path = path;
    this.budget = budget;
  }

  query(sql: string, params: readonly SqlParam[]): Promise<QueryResult> {
    const child = this.#start();
    const id = this.#nextId++;
    return new Promise<QueryResult>((resolve, reject) => {
      const pending: Pending = { request: { id, sql, params: [...params] }, resolve, reject };
      this.#pending.set(id, pending);
      if (this.#ready) this.#send(child, pending);
    });
  }

  #send(child: ChildProcess, pending: Pending): void {
    pending.timer = setTimeout(() => this.#stop(pending.request.id), this.budget.timeMs);
    child.send(pending.request);
  }

  /** Stops the child; reads in flight fail with SANDBOX_UNAVAILABLE. */
  close(): void {
    const child = this.#child;
    this.#child = undefined;
    this.#ready = false;
    child?.kill('SIGKILL');
    this.#failAll(SandboxErrors.SANDBOX_UNAVAILABLE({ detail: 'the sandbox was closed' }));
  }

  #start(): ChildProcess {
    if (this.#child) return this.#child;
    const child = fork(WORKER, [this.path, String(this.budget.maxRows), String(this.budget.maxBytes)], {
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const startLimit = setTimeout(() => {
      if (this.#child !== child || this.#ready) return;
      this.#child = undefined;
      child.kill('SIGKILL');
      this.#failAll(SandboxErrors.SANDBOX_UNAVAILABLE({ detail: `the read process did not start within ${START_LIMIT_MS / 1000} s` }));
    }, START_LIMIT_MS);
    startLimit.unref();
    child.on('message', (reply: ReadReply) => {
      if ('ready' in reply) {
        clearTimeout(startLimit);
        if (this.#child !== child) return;
        this.#ready = true;
        for (const waiting of this.#pending.values()) this.#send(child, waiting);
        return;
      }
      const pending = this.#pending.get(reply.id);
      if (!pending) return;
      this.#pending.delete(reply.id);
      clearTimeout(pending.timer);
      if ('result' in reply) pending.resolve(reply.result);
      else pending.reject(errorFromJson(reply.error));
    });
    child.on('exit', () => {
      clearTimeout(startLimit);
      if (this.#child !== child) return;
      this.#child = undefined;
      this.#ready = false;
      this.#failAll(SandboxErrors.SANDBOX_UNAVAILABLE({ detail: 'the read process ended unexpectedly' }));
    });
    child.unref();
    child.channel?.unref();
    this.#child = child;
    return child;
  }

  /** A read ran out of time: kill the child (and with it every read it was running). */
  #stop(id: number): void {
    const child = this.#child;
    this.#child = undefined;
    this.#ready = false;
    child?.kill('SIGKILL');
    const pending = this.#pending.get(id);
    this.#pending.delete(id);
    pending?.reject(
      SandboxErrors.READ_BUDGET_EXCEEDED({
        detail: `it ran longer than ${this.budget.timeMs} ms`,
        limit: 'time',
        timeMs: this.budget.timeMs,
      }),
    );
    this.#failAll(
      SandboxErrors.SANDBOX_UNAVAILABLE({ detail: 'another read ran past its time budget and was stopped; send this read again' }),
    );
  }

  #failAll(error: Error): void {
    for (const [id, pending] of this.#pending) {
      clearTimeout(pending.timer);
      pending.reject(error);
      this.#pending.delete(id);
    }
  }
}
