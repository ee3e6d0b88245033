import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.ts';

/** Version of the hashed form of an event; changing the hash input needs a new version. */
export const AUDIT_HASH_VERSION = 'opsgate-audit-v1';
/** The `prev_hash` of the first event. */
export const GENESIS_HASH = '0'.repeat(64);

export interface HashedEventContent {
  readonly seq: number;
  readonly sessionId: string | null;
  readonly type: string;
  readonly actor: string;
  readonly payload: string;
  readonly createdAt: string;
}

/**
 * The chain hash of one event. Unkeyed on purpose (anyone can check the chain's shape); what no
 * one without the audit key can forge is each event's journal MAC and the signed checkpoints.
 */
export function hashAuditEvent(prevHash: string, event: HashedEventContent): string {
  const input = canonicalJson([
    AUDIT_HASH_VERSION,
    event.seq,
    event.sessionId,
    event.type,
    event.actor,
    event.payload,
    event.createdAt,
    prevHash,
  ]);
  return createHash('sha256').update(input).digest('hex');
}
