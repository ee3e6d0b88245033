import { createHmac, createSecretKey, type KeyObject, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { AuditAnchorConfig } from '../store/index.ts';
import { AuditErrors } from './audit-errors.ts';

const MIN_KEY_BYTES = 32;

/**
 * The secret that authenticates journal rows and signs checkpoints. It lives outside the store
 * (an environment variable or a 0600 file), so whoever can only write the database cannot forge
 * what it signs. It is never written to the store, the audit, a log or a browser: only its `id`
 * (a one-way fingerprint) is.
 */
export class AuditKey {
  /** A fingerprint that names the key without revealing it. */
  readonly id: string;
  /** Where the key came from, for messages: `OPSGATE_AUDIT_KEY`, a file path, or a throwaway key. */
  readonly origin: string;
  // A KeyObject, imported once: an HMAC from a raw Buffer re-imports the key each time (about 4× the cost).
  readonly #secret: KeyObject;

  constructor(secret: Buffer, origin: string) {
    this.#secret = createSecretKey(secret);
    this.origin = origin;
    this.id = createHmac('sha256', this.#secret).update('opsgate-audit-key-id').digest('hex').slice(0, 16);
  }

  sign(text: string): string {
    return createHmac('sha256', this.#secret).update(text).digest('base64url');
  }

  verifies(text: string, signature: string): boolean {
    const expected = Buffer.from(this.sign(text));
    const given = Buffer.from(signature);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}

/** At least 32 bytes, written as hex (64+ hex digits) or base64 / base64url. */
export function parseAuditKey(text: string): Buffer {
  const trimmed = text.trim();
  const key = /^(?:[0-9a-fA-F]{2}){32,}$/.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  if (key.length < MIN_KEY_BYTES) throw new Error(`it decodes to ${key.length} bytes; at least ${MIN_KEY_BYTES} are needed`);
  return key;
}

/** Stores without a key location (`:memory:`) share one key for the life of the process. */
let throwaway: AuditKey | undefined;

/**
 * The audit key of a store: `OPSGATE_AUDIT_KEY` when set, else the key file (created 0600 when
 * `create` and absent). Undefined when there is none and `create` is false (`audit verify` must not
 * mint a key: that would hide a lost one).
 */
export function loadAuditKey(config: AuditAnchorConfig | undefined, options: { create: boolean }): AuditKey | undefined {
  if (config?.key !== undefined && config.key !== '') {
    let secret: Buffer;
    try {
      secret = parseAuditKey(config.key);
    } catch (error) {
      throw AuditErrors.AUDIT_KEY_INVALID({ detail: (error as Error).message });
    }
    return new AuditKey(secret, 'OPSGATE_AUDIT_KEY');
  }
  const file = config?.keyFile;
  if (!file) {
    throwaway ??= new AuditKey(randomBytes(32), 'a throwaway key (in-memory store)');
    return throwaway;
  }
  // Read on every call (each log reads it once): a key file put back or replaced is seen at once.
  if (!existsSync(file)) {
    if (!options.create) return undefined;
    createKeyFile(file);
  }
  let secret: Buffer;
  try {
    secret = parseAuditKey(readFileSync(file, 'utf8'));
  } catch (error) {
    throw AuditErrors.AUDIT_KEY_UNREADABLE({ file, detail: (error as Error).message });
  }
  return new AuditKey(secret, file);
}

/** Writes a fresh key without ever exposing a half-written file: another process starting at the same time reads whichever key won. */
function createKeyFile(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temporary, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(temporary);
  }
}
