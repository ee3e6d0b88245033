import { appendFileSync, chmodSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Kysely, Transaction } from 'kysely';
import type { CoreDatabase, Store } from '../store/index.ts';
import type { AuditKey } from './audit-key.ts';
import { canonicalJson } from './canonical-json.ts';

/**
 * A signed statement "the chain had `seq` events and ended in `hash` at `at`". Kept in the store
 * and, outside it, in an append-only file: deleting or re-hashing events cannot match a
 * checkpoint without the key.
 */
export interface AuditCheckpoint {
  readonly seq: number;
  readonly hash: string;
  readonly at: string;
  readonly keyId: string;
  /** The first event sealed with a journal MAC; every later event must carry one. */
  readonly macsFrom: number;
  readonly signature: string;
}

export type UnsignedCheckpoint = Omit<AuditCheckpoint, 'keyId' | 'signature'>;

function signedText(checkpoint: Omit<AuditCheckpoint, 'signature'>): string {
  return canonicalJson([
    'opsgate-audit-checkpoint-v1',
    checkpoint.seq,
    checkpoint.hash,
    checkpoint.at,
    checkpoint.keyId,
    checkpoint.macsFrom,
  ]);
}

export function signCheckpoint(key: AuditKey, checkpoint: UnsignedCheckpoint): AuditCheckpoint {
  const unsigned = { ...checkpoint, keyId: key.id };
  return { ...unsigned, signature: key.sign(signedText(unsigned)) };
}

export function checkpointSignatureHolds(key: AuditKey, checkpoint: AuditCheckpoint): boolean {
  // Stryker disable next-line ConditionalExpression: the signature covers keyId, so another id never verifies anyway; the check names the cheaper reason first
  return checkpoint.keyId === key.id && key.verifies(signedText(checkpoint), checkpoint.signature);
}

/**
 * Names the database in checkpoint-file lines, so stores that share a data directory (tests, a
 * laptop) keep their checkpoints apart: the SQLite file, or the PostgreSQL server and database
 * (`host:port/name`, as the connection string names them). A store reset in place (a new file
 * at the same path) is, to verify, a wiped store: move the checkpoint file aside with it.
 */
export function storeLabel(store: Pick<Store, 'dialect' | 'location'>): string {
  if (store.dialect === 'sqlite') return `sqlite:${store.location}`;
  try {
    const url = new URL(store.location);
    return `postgres:${url.host}${url.pathname}`;
  } catch {
    return `postgres:${store.location}`;
  }
}

/** One line of the checkpoint file and the external anchor: the store's label, then the checkpoint. */
export function checkpointLines(label: string, checkpoints: readonly AuditCheckpoint[]): string {
  return checkpoints.map((c) => `${JSON.stringify({ store: label, ...c })}\n`).join('');
}

export function appendCheckpointFile(file: string, label: string, checkpoints: readonly AuditCheckpoint[]): void {
  if (checkpoints.length === 0) return;
  const fresh = !existsSync(file);
  // Stryker disable next-line ConditionalExpression: a recursive mkdir of a directory that exists changes nothing
  if (fresh) mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  appendFileSync(file, checkpointLines(label, checkpoints), { mode: 0o600 });
  // Stryker disable next-line all: appendFileSync creates the file 0600 already, less what the umask removes; this only restores owner bits a umask took
  if (fresh) chmodSync(file, 0o600);
}

/** This store's checkpoints in the file (others' lines are skipped), and how many lines are unreadable. */
export function readCheckpointFile(file: string, label: string): { checkpoints: AuditCheckpoint[]; unreadable: number } {
  if (!existsSync(file)) return { checkpoints: [], unreadable: 0 };
  return parseCheckpointLines(readFileSync(file, 'utf8'), label);
}

/**
 * This store's checkpoints among lines of text. A line may carry a prefix before the JSON (a
 * syslog or log-shipper header, when the external anchor is a log system).
 */
export function parseCheckpointLines(text: string, label: string): { checkpoints: AuditCheckpoint[]; unreadable: number } {
  const checkpoints: AuditCheckpoint[] = [];
  let unreadable = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const start = line.indexOf('{');
    try {
      // Stryker disable next-line StringLiteral: the message is dropped by the catch below; only the count is kept
      if (start === -1) throw new Error('no JSON on this line');
      const value = JSON.parse(line.slice(start)) as Record<string, unknown>;
      if (value.store !== label) continue;
      checkpoints.push(toCheckpoint(value));
    } catch {
      unreadable += 1;
    }
  }
  return { checkpoints, unreadable };
}

function toCheckpoint(value: Record<string, unknown>): AuditCheckpoint {
  const { seq, hash, at, keyId, macsFrom, signature } = value;
  if (
    typeof seq !== 'number' ||
    typeof hash !== 'string' ||
    typeof at !== 'string' ||
    typeof keyId !== 'string' ||
    typeof macsFrom !== 'number' ||
    typeof signature !== 'string'
  )
    // Stryker disable next-line StringLiteral: the message is dropped by parseCheckpointLines' catch; only the count is kept
    throw new Error('not a checkpoint');
  return { seq, hash, at, keyId, macsFrom, signature };
}

type Db = Kysely<CoreDatabase> | Transaction<CoreDatabase>;

export async function insertCheckpoint(db: Db, checkpoint: AuditCheckpoint): Promise<void> {
  await db
    .insertInto('audit_checkpoints')
    .values({
      seq: checkpoint.seq,
      hash: checkpoint.hash,
      at: checkpoint.at,
      key_id: checkpoint.keyId,
      macs_from: checkpoint.macsFrom,
      signature: checkpoint.signature,
    })
    // Another sealer may have anchored the same head already.
    .onConflict((oc) => oc.column('seq').doNothing())
    .execute();
}

export async function lastStoredCheckpoint(db: Db): Promise<AuditCheckpoint | undefined> {
  const row = await db.selectFrom('audit_checkpoints').selectAll().orderBy('seq', 'desc').limit(1).executeTakeFirst();
  return row ? fromRow(row) : undefined;
}

export async function storedCheckpoints(db: Db): Promise<AuditCheckpoint[]> {
  return (await db.selectFrom('audit_checkpoints').selectAll().orderBy('seq', 'asc').execute()).map(fromRow);
}

function fromRow(row: CoreDatabase['audit_checkpoints']): AuditCheckpoint {
  return {
    seq: Number(row.seq),
    hash: row.hash,
    at: row.at,
    keyId: row.key_id,
    macsFrom: Number(row.macs_from),
    signature: row.signature,
  };
}
