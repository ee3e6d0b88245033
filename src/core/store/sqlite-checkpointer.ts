import { resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { CheckpointReply, CheckpointRequest } from './sqlite-checkpoint-worker.ts';

/** Commits between two background checkpoints. A round trip is 4 commits of ~13 pages each (issue 32). */
const COMMITS_PER_CHECKPOINT = 64;

/**
 * The WAL size (pages) at which a commit checkpoints on its own thread after all: a backstop for a
 * worker that is slow, gone or could not start. SQLite's default, 1,000, is reached before the
 * worker's turn comes at ~50 pages per round trip.
 */
export const BACKSTOP_CHECKPOINT_PAGES = 4000;

/**
 * Copies a SQLite file's write-ahead log back into the database on a worker thread. SQLite's own
 * automatic checkpoint runs inside the commit that crosses its threshold, on the committing thread,
 * and fsyncs the log and the database file: one round trip in ~20 waited for two fsyncs there
 * (`bench:hitl-roundtrip`: ~0.17 fsyncs per round trip, 2–8 ms each on the test machine's disk).
 * What a crash can lose does not change: commits are made the same way, and a checkpoint from
 * another connection is SQLite's own crash-safe operation. Started at the first checkpoint due,
 * so a short-lived store (a test, a CLI command) never starts a thread.
 */
export class BackgroundCheckpointer {
  readonly #path: string;
  #worker: Worker | undefined;
  #commits = 0;
  #failed = false;
  #started = false;
  #checkpoints = 0;
  #exited: Promise<void> | undefined;

  constructor(path: string) {
    // Resolved now: the worker may start long after a relative path was given (and the directory changed).
    this.#path = resolve(path);
  }

  /** Whether the worker thread was ever started. */
  get started(): boolean {
    return this.#started;
  }

  /** Checkpoints that copied frames so far (the tests read it). */
  get checkpoints(): number {
    return this.#checkpoints;
  }

  /**
   * Called after each commit on the file: every `COMMITS_PER_CHECKPOINT`th asks the worker for a
   * checkpoint. It does not wait for the worker's answer: a caller that never yields to the event
   * loop (a benchmark's loop of microtasks) would never hear it; requests that pile up behind a slow
   * checkpoint find nothing left to copy and return at once.
   */
  committed(): void {
    this.#commits += 1;
    if (this.#commits < COMMITS_PER_CHECKPOINT || this.#failed) return;
    this.#commits = 0;
    (this.#worker ?? this.#start()).postMessage('checkpoint' satisfies CheckpointRequest);
  }

  /**
   * Lets the worker close its connection and stop. The worker may still be starting (it starts at
   * the checkpoint due, asynchronously) and would then open the file after the store closed it,
   * recreating `-wal` and `-shm` beside it (a test's cleanup of the directory failed with ENOTEMPTY):
   * `stopped()` says when it is gone. Held by the event loop until then, so a process that awaits
   * it does not end first.
   */
  close(): void {
    this.#worker?.ref();
    this.#worker?.postMessage('close' satisfies CheckpointRequest);
    this.#worker = undefined;
  }

  /** Resolves when the worker thread, if one was started, has closed its connection and ended. */
  stopped(): Promise<void> {
    return this.#exited ?? Promise.resolve();
  }

  #start(): Worker {
    const worker = new Worker(new URL('./sqlite-checkpoint-worker.ts', import.meta.url), { workerData: { path: this.#path } });
    // A checkpointer never keeps a process alive; one that stops takes nothing with it (the backstop checkpoints).
    worker.unref();
    this.#started = true;
    worker.on('message', (reply: CheckpointReply) => {
      if ('checkpointedFrames' in reply && reply.checkpointedFrames > 0) this.#checkpoints += 1;
    });
    worker.on('error', () => this.#stop());
    worker.on('exit', () => this.#stop());
    this.#exited = new Promise((resolve) => worker.once('exit', () => resolve()));
    this.#worker = worker;
    return worker;
  }

  #stop(): void {
    this.#failed = true;
    this.#worker = undefined;
  }
}
