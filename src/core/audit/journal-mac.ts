import { randomBytes } from 'node:crypto';
import type { AuditKey } from './audit-key.ts';

/** The authenticated content of one journaled event. */
export interface JournalContent {
  readonly session_id: string | null;
  readonly type: string;
  readonly actor: string;
  readonly payload: string;
  readonly created_at: string;
}

// A per-process random prefix and a counter make every row's nonce unique without a syscall per event.
const NONCE_PREFIX = randomBytes(9).toString('base64url');
let nonceCounter = 0;

/**
 * Each field length-prefixed (`-` for null), so no two rows share an input. Cheaper than JSON: the
 * payload is not escaped again for every MAC made or checked.
 */
function macInput(nonce: string, row: JournalContent): string {
  let input = 'opsgate-journal-v1';
  for (const field of [nonce, row.session_id, row.type, row.actor, row.payload, row.created_at])
    input += field === null ? '-' : `${field.length}:${field}`;
  return input;
}

/**
 * `<keyId>.<nonce>.<hmac>`: written with the row in the transaction of its change and kept with the
 * sealed event, so a row that no opsgate process wrote (or an event edited later) does not verify.
 * The nonce makes each MAC unique, so a copied row shows up as a repeat.
 */
export function journalMac(key: AuditKey, row: JournalContent): string {
  // Stryker disable next-line AssignmentOperator: counting down makes unique nonces as well
  nonceCounter += 1;
  const nonce = `${NONCE_PREFIX}${nonceCounter.toString(36)}`;
  return `${key.id}.${nonce}.${key.sign(macInput(nonce, row))}`;
}

/** Why a row's MAC does not hold, or undefined when it does. */
export function journalMacProblem(key: AuditKey, row: JournalContent & { readonly mac: string | null }): string | undefined {
  if (!row.mac) return 'it carries no MAC';
  const [keyId, nonce, mac, ...rest] = row.mac.split('.');
  if (!keyId || !nonce || !mac || rest.length > 0) return 'its MAC is malformed';
  if (keyId !== key.id) return `its MAC was made with another audit key (id ${keyId}; this key is ${key.id})`;
  if (!key.verifies(macInput(nonce, row), mac)) return 'its MAC does not match its content';
  return undefined;
}

/** The nonce of a MAC (unique per journaled row). */
export function macNonce(mac: string): string {
  return mac.split('.')[1] ?? mac;
}
