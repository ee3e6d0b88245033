import { spawn } from 'node:child_process';

/**
 * The external checkpoint anchor (review M2-new): a place outside the database and off the
 * replicas' disks that receives every signed checkpoint, whichever replica signed it, and that
 * `opsgate audit verify` reads back from any replica or another host. opsgate talks to it through
 * two operator-configured shell commands, so any append-only store will do: a log host over ssh
 * (`ssh anchor@loghost 'cat >> /srv/opsgate/checkpoints.jsonl'`), syslog (`logger -t opsgate`),
 * an object store or an HTTP collector (`curl -fsS --data-binary @- URL`).
 *
 * - the write command gets one JSON line per checkpoint on standard input and must exit 0;
 * - the read command prints what was appended (any line holding a checkpoint's JSON counts, so a
 *   syslog prefix is fine).
 *
 * The write command is `OPSGATE_AUDIT_ANCHOR_COMMAND`, the read command `OPSGATE_AUDIT_ANCHOR_READ_COMMAND`.
 */

const WRITE_TIMEOUT_MS = 15_000;
const READ_TIMEOUT_MS = 60_000;
const MAX_READ_BYTES = 256 * 1024 * 1024;

function run(command: string, input: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', command], { stdio: ['pipe', 'pipe', 'pipe'], timeout: timeoutMs });
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > MAX_READ_BYTES) child.kill();
      else out.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (err.length < 400) err += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) return resolve(Buffer.concat(out).toString('utf8'));
      const why = signal
        ? `stopped by ${signal}${signal === 'SIGTERM' ? ` (over ${timeoutMs / 1000} s or too much output)` : ''}`
        : `exit ${code}`;
      reject(new Error(`${why}${err.trim() ? `: ${err.trim().split('\n')[0]}` : ''}`));
    });
    // A command that does not read its input (`true`) closes the pipe early; its exit status decides.
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
  });
}

/** Hands checkpoint lines to the write command; rejects with what went wrong. */
export async function sendToAnchor(command: string, lines: string): Promise<void> {
  await run(command, lines, WRITE_TIMEOUT_MS);
}

/** What the read command prints. */
export function readAnchor(command: string): Promise<string> {
  return run(command, '', READ_TIMEOUT_MS);
}
