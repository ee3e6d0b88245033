import { existsSync, readFileSync } from 'node:fs';
import type { Store } from '../store/index.ts';
import type { AuditKey } from './audit-key.ts';
import { GENESIS_HASH, hashAuditEvent } from './chain-hash.ts';
import { readAnchor } from './checkpoint-anchor.ts';
import {
  type AuditCheckpoint,
  checkpointSignatureHolds,
  parseCheckpointLines,
  readCheckpointFile,
  storedCheckpoints,
  storeLabel,
} from './checkpoints.ts';
import { AUDIT_EVENT_TYPES } from './event-types.ts';
import { journalMacProblem, macNonce } from './journal-mac.ts';
import { checkToolCallEvents, type ToolCallEvidence } from './verify-tool-calls.ts';

export interface AuditVerification {
  readonly ok: boolean;
  readonly checked: number;
  /** Sequence number of the first event whose hash, link, MAC or checkpoint does not verify. */
  readonly firstBrokenSeq?: number;
  /** One line naming what is wrong. */
  readonly reason?: string;
  /** Signed checkpoints compared (from the store and the checkpoint file). */
  readonly checkpoints?: number;
  /** Tool calls compared against their audit events. */
  readonly callsChecked?: number;
  /** Where the checkpoints it compared came from (the store, the file, the external anchor). */
  readonly sources?: readonly string[];
  /** What this run could not prove, one line each (no key yet, a chain older than the anchors). */
  readonly notices?: readonly string[];
}

export interface VerifyOptions {
  /** A copy of the external anchor (`audit verify --checkpoints FILE`), read besides the configured sources. */
  readonly checkpointsFile?: string;
}

const PAGE = 2000;

interface KnownCheckpoint extends AuditCheckpoint {
  readonly where: string;
}

/**
 * The whole check behind `opsgate audit verify`. Streams the chain in pages, so memory holds the
 * checkpoints, one page and the tool-call evidence, not the events.
 */
export async function verifyAudit(
  store: Store,
  key: AuditKey | undefined,
  seal: () => Promise<unknown>,
  options: VerifyOptions = {},
): Promise<AuditVerification> {
  const notices: string[] = [];
  const anchors = store.auditAnchors;
  // Stryker disable next-line all: read only when there is no key, and a store without anchors always has one (a throwaway key)
  const keyFile = anchors?.keyFile ?? '<data dir>/audit.key';
  // Calls are read before sealing: each one's events were journaled in its own transaction, so
  // the seal below chains them all.
  const calls = new Map<string, ToolCallEvidence>();
  for (const row of await store.db
    .selectFrom('tool_calls')
    .select(['id', 'tool', 'status', 'mutability', 'approved_by', 'started_at', 'decision'])
    .where('status', 'in', ['approved', 'executing', 'executed', 'failed', 'unknown'])
    .execute())
    calls.set(row.id, { ...row, events: new Set() });
  if (key) {
    try {
      await seal();
    } catch (error) {
      return { ok: false, checked: 0, reason: `the journal could not be sealed: ${(error as Error).message}` };
    }
  } else {
    notices.push(`no audit key (OPSGATE_AUDIT_KEY or ${keyFile}): journal MACs and checkpoint signatures cannot be checked`);
  }

  let stored: AuditCheckpoint[];
  try {
    stored = await storedCheckpoints(store.db);
  } catch (error) {
    return fail(
      0,
      `the store's checkpoint table (audit_checkpoints) cannot be read (${(error as Error).message}): it was dropped or damaged`,
    );
  }
  const checkpoints: KnownCheckpoint[] = stored.map((c) => ({ ...c, where: 'the store' }));
  const inStore = checkpoints.length;
  const file = anchors?.checkpointFile;
  if (file) {
    const fromFile = readCheckpointFile(file, storeLabel(store));
    checkpoints.push(...fromFile.checkpoints.map((c) => ({ ...c, where: file })));
    if (fromFile.unreadable > 0) notices.push(`${fromFile.unreadable} unreadable line(s) in ${file} were skipped`);
    if (inStore > 0 && fromFile.checkpoints.length === 0) {
      // SQLite: the sealer beside this file signed every checkpoint the store holds, so an empty file was emptied.
      // PostgreSQL: only the replica that held the sealers' lock wrote its own file; this one may never have.
      if (store.dialect === 'sqlite')
        return fail(
          0,
          `${file} holds none of this store's ${inStore} checkpoint(s): the checkpoint file was deleted or replaced; restore it from its backup (or set OPSGATE_AUDIT_CHECKPOINT_FILE to where it is)`,
        );
      notices.push(`${file} holds none of this store's checkpoints (this replica never sealed): checked against the store's ${inStore}`);
    }
  }
  const external = await externalCheckpoints(store, options);
  if ('problem' in external) return fail(0, external.problem);
  for (const source of external.sources) {
    checkpoints.push(...source.checkpoints.map((c) => ({ ...c, where: source.name })));
    if (source.unreadable > 0) notices.push(`${source.unreadable} line(s) of ${source.name} held no checkpoint and were skipped`);
    // Every replica sends every checkpoint it signs there: none of the store's means they were removed.
    if (inStore > 0 && source.checkpoints.length === 0)
      return fail(
        0,
        `${source.name} holds none of this store's ${inStore} checkpoint(s): the anchor was emptied or replaced, or names this database differently (replicas must use the same host:port/database in OPSGATE_DATABASE_URL)`,
      );
  }
  if (store.dialect === 'postgres' && external.sources.length === 0)
    notices.push(
      'no external checkpoint anchor was read (OPSGATE_AUDIT_ANCHOR_READ_COMMAND or --checkpoints FILE): the tail deleted together with the newest checkpoint rows cannot be detected',
    );
  const sources = ['the store', ...(file ? [file] : []), ...external.sources.map((source) => source.name)].join(' or ');
  const signed = new Map<number, KnownCheckpoint>();
  for (const checkpoint of checkpoints) {
    if (!key)
      return fail(
        0,
        `signed checkpoints exist (in ${checkpoint.where}) but no audit key was found: restore the key that signed them (OPSGATE_AUDIT_KEY or ${keyFile})`,
      );
    if (checkpoint.keyId !== key.id)
      return fail(
        0,
        `the checkpoint at event ${checkpoint.seq} (in ${checkpoint.where}) was signed with audit key ${checkpoint.keyId}, but the key loaded from ${key.origin} is ${key.id}: restore the original key (it cannot be rotated in this version)`,
      );
    if (!checkpointSignatureHolds(key, checkpoint))
      return fail(
        0,
        `the checkpoint at event ${checkpoint.seq} (in ${checkpoint.where}) has an invalid signature: it was forged or edited without the audit key`,
      );
    signed.set(checkpoint.seq, checkpoint);
  }
  // Stryker disable next-line EqualityOperator: the checkpoints are keyed by seq, so two never share one
  const last = [...signed.values()].reduce<KnownCheckpoint | undefined>((a, b) => (a && a.seq >= b.seq ? a : b), undefined);
  const macsFrom = Math.min(...[...signed.values()].map((c) => c.macsFrom), Number.POSITIVE_INFINITY);
  if (signed.size === 0)
    notices.push('no signed checkpoint yet: tail truncation and a wiped table cannot be detected before the first one');

  let prevHash = GENESIS_HASH;
  let expectedSeq = 1;
  let checked = 0;
  let legacy = 0;
  const nonces = new Map<string, number>();
  for (;;) {
    const rows = await store.db
      .selectFrom('audit_events')
      .selectAll()
      .where('seq', '>', expectedSeq - 1)
      .orderBy('seq', 'asc')
      .limit(PAGE)
      .execute();
    if (rows.length === 0) break;
    for (const row of rows) {
      const seq = Number(row.seq);
      if (seq !== expectedSeq) return fail(checked, `event ${expectedSeq} is missing (next stored is ${seq})`, expectedSeq);
      if (row.prev_hash !== prevHash) return fail(checked, `event ${seq} does not link to the previous event's hash`, seq);
      const recomputed = hashAuditEvent(prevHash, {
        seq,
        sessionId: row.session_id,
        type: row.type,
        actor: row.actor,
        payload: row.payload,
        createdAt: row.created_at,
      });
      if (recomputed !== row.hash) return fail(checked, `event ${seq} was changed after it was written`, seq);
      if (!AUDIT_EVENT_TYPES.has(row.type) && !/^[a-z][a-z0-9_.]*$/.test(row.type))
        return fail(checked, `event ${seq} has an invalid type`, seq);
      if (row.mac) {
        // The sealer signs its first checkpoint in the transaction that seals the first MAC-carrying events.
        if (checkpoints.length === 0)
          return fail(
            checked,
            `event ${seq} carries a journal MAC, so the sealer that wrote it signed a checkpoint with it, but no signed checkpoint was found in ${sources}: they were deleted; restore them from a backup or an off-host copy`,
            seq,
          );
        // Stryker disable all: unreachable while the checkpoint loop above refuses signed checkpoints without a key; kept so a MAC is never read without one
        if (!key)
          return fail(checked, `event ${seq} carries a MAC but no audit key was found: restore it (OPSGATE_AUDIT_KEY or ${keyFile})`, seq);
        // Stryker restore all
        const problem = journalMacProblem(key, row);
        if (problem) return fail(checked, `event ${seq} does not verify: ${problem} (edited and re-hashed without the key)`, seq);
        const nonce = macNonce(row.mac);
        const earlier = nonces.get(nonce);
        if (earlier !== undefined) return fail(checked, `event ${seq} repeats the journal row of event ${earlier} (a copied row)`, seq);
        nonces.set(nonce, seq);
      } else if (seq >= macsFrom) {
        return fail(checked, `event ${seq} carries no MAC although every event from ${macsFrom} on was sealed with one`, seq);
      } else {
        legacy += 1;
      }
      if (row.type === 'audit_journal_forgery')
        return fail(checked, `event ${seq} records a forged journal row: ${forgeryReason(row.payload)}`, seq);
      const checkpoint = signed.get(seq);
      if (checkpoint && checkpoint.hash !== row.hash)
        return fail(
          checked,
          `event ${seq} differs from the checkpoint signed at ${checkpoint.at} (in ${checkpoint.where}): the chain was rewritten and re-hashed`,
          seq,
        );
      collectCallEvidence(calls, row.type, row.payload);
      prevHash = row.hash;
      expectedSeq += 1;
      checked += 1;
    }
  }
  if (last && checked === 0)
    return fail(
      0,
      `the audit log is empty, but ${signed.size} signed checkpoint(s) exist (the last at event ${last.seq}, ${last.at}): its events were deleted`,
    );
  if (last && checked < last.seq)
    return fail(
      checked,
      `the chain ends at event ${checked}, but the checkpoint signed at ${last.at} (in ${last.where}) covers ${last.seq} events: the last ${last.seq - checked} were deleted`,
      checked + 1,
    );
  if (legacy > 0) notices.push(`${legacy} event(s) were sealed before journal MACs existed: only their hash chain is checked`);
  const missing = checkToolCallEvents(calls);
  if (missing) return { ...fail(checked, missing), checkpoints: signed.size, callsChecked: calls.size };
  return {
    ok: true,
    checked,
    checkpoints: signed.size,
    callsChecked: calls.size,
    sources: ['the store', ...(file ? [file] : []), ...external.sources.map((source) => source.name)],
    notices,
  };

  function fail(atChecked: number, reason: string, firstBrokenSeq?: number): AuditVerification {
    return {
      ok: false,
      checked: atChecked,
      reason,
      // Stryker disable next-line ConditionalExpression: an undefined firstBrokenSeq reads, and serialises, as an absent one
      ...(firstBrokenSeq !== undefined ? { firstBrokenSeq } : {}),
      notices,
    };
  }
}

interface ExternalSource {
  readonly name: string;
  readonly checkpoints: AuditCheckpoint[];
  readonly unreadable: number;
}

/** The external anchor (its read command) and a copy named on the command line. */
async function externalCheckpoints(store: Store, options: VerifyOptions): Promise<{ sources: ExternalSource[] } | { problem: string }> {
  const label = storeLabel(store);
  const sources: ExternalSource[] = [];
  const command = store.auditAnchors?.anchorReadCommand;
  if (command) {
    const name = 'the external anchor (OPSGATE_AUDIT_ANCHOR_READ_COMMAND)';
    try {
      sources.push({ name, ...parseCheckpointLines(await readAnchor(command), label) });
    } catch (error) {
      return {
        problem: `${name} could not be read (${(error as Error).message}): fix the command, or verify against a copy with --checkpoints FILE`,
      };
    }
  }
  if (options.checkpointsFile) {
    if (!existsSync(options.checkpointsFile))
      return {
        problem: `${options.checkpointsFile} (--checkpoints) does not exist: name the copy of the external anchor to verify against`,
      };
    sources.push({ name: options.checkpointsFile, ...parseCheckpointLines(readFileSync(options.checkpointsFile, 'utf8'), label) });
  }
  return { sources };
}

const CALL_EVENTS = new Set(['tool_approved', 'tool_auto_approved', 'tool_executing', 'tool_executed', 'tool_failed', 'tool_unknown']);

function collectCallEvidence(calls: Map<string, ToolCallEvidence>, type: string, payload: string): void {
  // Stryker disable next-line ConditionalExpression,LogicalOperator: a shortcut; other events add types no check asks for
  if (calls.size === 0 || !CALL_EVENTS.has(type)) return;
  try {
    const callId = (JSON.parse(payload) as { callId?: unknown }).callId;
    // Stryker disable next-line ConditionalExpression,OptionalChaining: a callId that is not a string finds no call either; without `?.` the TypeError for a call whose row is gone lands in the catch below, to the same effect
    if (typeof callId === 'string') calls.get(callId)?.events.add(type);
  } catch {
    // A payload that is not JSON names no call; the hash chain already vouched for its content.
  }
}

function forgeryReason(payload: string): string {
  try {
    const reason = (JSON.parse(payload) as { reason?: unknown }).reason;
    return typeof reason === 'string' ? reason : 'see the event';
  } catch {
    return 'see the event';
  }
}
