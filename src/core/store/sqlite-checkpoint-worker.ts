import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';

/** What the checkpointer asks its worker: copy the WAL into the database now, or close and stop. */
export type CheckpointRequest = 'checkpoint' | 'close';

/** What one checkpoint did (SQLite's own counts), or why it could not run. */
export type CheckpointReply = { readonly walFrames: number; readonly checkpointedFrames: number } | { readonly error: string };

/**
 * The worker thread of `BackgroundCheckpointer`: its own connection to the SQLite file runs the
 * passive checkpoints (and their fsyncs) off the thread that commits. Passive: it copies what no
 * reader still needs and never waits for a lock, so writers are never held up by it.
 */
const { path } = workerData as { readonly path: string };
const port = parentPort!;
const database = new DatabaseSync(path);
database.exec('PRAGMA synchronous = NORMAL');
const checkpoint = database.prepare('PRAGMA wal_checkpoint(PASSIVE)');

port.on('message', (request: CheckpointRequest) => {
  if (request === 'close') {
    database.close();
    port.close();
    return;
  }
  let reply: CheckpointReply;
  try {
    const row = checkpoint.get() as { log: number; checkpointed: number };
    reply = { walFrames: row.log, checkpointedFrames: row.checkpointed };
  } catch (error) {
    reply = { error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
