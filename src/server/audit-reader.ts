import { sql } from 'kysely';
import { AuditLog } from '../core/audit/index.ts';
import type { Identity } from '../core/identity/index.ts';
import { hasRole, ROLE_APPROVER } from '../core/identity/index.ts';
import type { Store } from '../core/store/index.ts';

export interface AuditFilter {
  readonly sessionId?: string;
  /** A username: events that person did (`user:<name>`) or that happened in their sessions. */
  readonly user?: string;
  readonly type?: string;
  /** ISO time, inclusive. */
  readonly from?: string;
  /** ISO time, exclusive. */
  readonly to?: string;
  /** Events with seq greater than this. */
  readonly afterSeq?: number;
  /** Events with seq lower than this (the next page when reading newest first). */
  readonly beforeSeq?: number;
  /** Events about this tool (`payload.tool`). */
  readonly tool?: string;
  /** Events whose details mention this text: a host, a release, an access, a table… */
  readonly target?: string;
  /** `asc` (oldest first, the default) or `desc` (newest first). */
  readonly order?: 'asc' | 'desc';
  /** Default 200, at most 1000. */
  readonly limit?: number;
}

export interface AuditEventView {
  readonly seq: number;
  readonly sessionId: string | null;
  readonly type: string;
  readonly actor: string;
  readonly payload: unknown;
  readonly prevHash: string;
  readonly hash: string;
  readonly createdAt: string;
}

interface AuditChainStatus {
  readonly ok: boolean;
  readonly checked: number;
  readonly firstBrokenSeq?: number;
}

/** Checks the hash chain; supplied by `src/core/audit` (the server does not re-implement hashing). */
export type AuditVerifier = () => Promise<AuditChainStatus>;

/**
 * Reads the audit log for a caller: approvers and admins see every event, other people only the
 * events of their own sessions.
 */
export class AuditReader {
  readonly #store: Store;
  readonly #audit: AuditLog;
  constructor(store: Store) {
    this.#store = store;
    this.#audit = new AuditLog(store);
  }

  async list(actor: Identity, filter: AuditFilter): Promise<AuditEventView[]> {
    // Journaled events join the chain first, so the reader sees every committed event.
    await this.#audit.seal();
    const limit = Math.min(Math.max(filter.limit ?? 200, 1), 1000);
    let query = this.#store.db.selectFrom('audit_events').selectAll();
    if (filter.sessionId) query = query.where('session_id', '=', filter.sessionId);
    if (filter.user) {
      const user = filter.user;
      const owned = this.#store.db
        .selectFrom('sessions')
        .innerJoin('users', 'users.id', 'sessions.user_id')
        .select('sessions.id')
        .where('users.username', '=', user);
      query = query.where((eb) => eb.or([eb('actor', 'in', [`user:${user}`, user]), eb('session_id', 'in', owned)]));
    }
    if (filter.type) query = query.where('type', '=', filter.type);
    if (filter.from) query = query.where('created_at', '>=', filter.from);
    if (filter.to) query = query.where('created_at', '<', filter.to);
    if (filter.afterSeq !== undefined) query = query.where('seq', '>', filter.afterSeq);
    if (filter.beforeSeq !== undefined) query = query.where('seq', '<', filter.beforeSeq);
    // The payload is stored as compact JSON text: `"tool":"x"` finds the tool on SQLite and PostgreSQL alike.
    if (filter.tool) query = query.where(sql<boolean>`payload like ${likePattern(`"tool":${JSON.stringify(filter.tool)}`)} escape '\\'`);
    if (filter.target) query = query.where(sql<boolean>`lower(payload) like ${likePattern(filter.target.toLowerCase())} escape '\\'`);
    if (!hasRole(actor, ROLE_APPROVER)) {
      const own = this.#store.db.selectFrom('sessions').select('id').where('user_id', '=', actor.userId);
      query = query.where('session_id', 'in', own);
    }
    const rows = await query
      .orderBy('seq', filter.order ?? 'asc')
      .limit(limit)
      .execute();
    return rows.map((row) => ({
      seq: Number(row.seq),
      sessionId: row.session_id,
      type: row.type,
      actor: row.actor,
      payload: safeJson(row.payload),
      prevHash: row.prev_hash,
      hash: row.hash,
      createdAt: row.created_at,
    }));
  }

  /** Every visible event matching the filter, as JSON Lines, page by page. */
  async *jsonLines(actor: Identity, filter: AuditFilter): AsyncGenerator<string> {
    let afterSeq = filter.afterSeq ?? 0;
    for (;;) {
      const page = await this.list(actor, { ...filter, afterSeq, limit: 1000 });
      for (const event of page) yield `${JSON.stringify(event)}\n`;
      if (page.length < 1000) return;
      afterSeq = page[page.length - 1]!.seq;
    }
  }

  /** The event types visible to `actor`, for the filter's list. */
  async types(actor: Identity): Promise<string[]> {
    await this.#audit.seal();
    let query = this.#store.db.selectFrom('audit_events').select('type').distinct();
    if (!hasRole(actor, ROLE_APPROVER)) {
      const own = this.#store.db.selectFrom('sessions').select('id').where('user_id', '=', actor.userId);
      query = query.where('session_id', 'in', own);
    }
    return (await query.orderBy('type').execute()).map((row) => row.type);
  }
}

/** `%text%` for LIKE, with LIKE's own wildcards in `text` taken literally (tool names have `_`). */
function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
