import { createHash } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Kysely } from 'kysely';
import { AuditLog, agentActor, canonicalJson } from '../core/audit/index.ts';
import type { Store } from '../core/store/index.ts';
import type { StoreMigration } from '../core/store/migration.ts';
import { GatewayErrors } from './gateway-errors.ts';

/** What a client and a model read of a tool: a change to any of it is a change of the tool. */
function definitionOf(tool: Tool): Record<string, unknown> {
  return {
    name: tool.name,
    title: tool.title ?? null,
    description: tool.description ?? null,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema ?? null,
    annotations: tool.annotations ?? null,
  };
}

export function definitionHash(tool: Tool): string {
  return createHash('sha256')
    .update(canonicalJson(definitionOf(tool)))
    .digest('hex');
}

/** Each upstream tool's accepted definition, and the changed one an admin has not accepted yet. */
export const toolDefinitionsMigration: StoreMigration = {
  name: 'gateway-001-tool-definitions',
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('gateway_tool_definitions')
      .addColumn('upstream', 'text', (c) => c.notNull())
      .addColumn('tool', 'text', (c) => c.notNull())
      .addColumn('accepted_hash', 'text', (c) => c.notNull())
      .addColumn('accepted_definition', 'text', (c) => c.notNull())
      .addColumn('accepted_at', 'text', (c) => c.notNull())
      .addColumn('accepted_by', 'text', (c) => c.notNull())
      .addColumn('changed_hash', 'text')
      .addColumn('changed_definition', 'text')
      .addColumn('changed_at', 'text')
      .addPrimaryKeyConstraint('gateway_tool_definitions_pk', ['upstream', 'tool'])
      .execute();
  },
};

/** Which change was announced to admins, so that one process announces each change once, whichever process saw it. */
export const toolChangeNoticesMigration: StoreMigration = {
  name: 'gateway-002-tool-change-notices',
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('gateway_tool_definitions').addColumn('announced_hash', 'text').execute();
  },
};

interface DefinitionRow {
  upstream: string;
  tool: string;
  accepted_hash: string;
  accepted_definition: string;
  accepted_at: string;
  accepted_by: string;
  changed_hash: string | null;
  changed_definition: string | null;
  changed_at: string | null;
  announced_hash: string | null;
}

/** A tool whose definition changed since an admin (or its first sighting) accepted it. */
export interface ChangedTool {
  readonly upstream: string;
  readonly tool: string;
  readonly acceptedHash: string;
  readonly changedHash: string;
  readonly accepted: unknown;
  readonly changed: unknown;
  readonly changedAt: string;
}

type Db = Kysely<{ gateway_tool_definitions: DefinitionRow }>;

/**
 * Tool pinning against rug pulls: the first definition seen of each tool is recorded (trust on
 * first use); a later, different definition is held back (the tool is not offered or called)
 * and audited until an admin accepts it.
 */
export class ToolDefinitions {
  readonly #db: Db;
  readonly #audit: AuditLog;
  readonly #onChanged: ((change: ChangedTool) => void) | undefined;

  /** `onChanged` hears each change once, when it is first recorded (the notices to admins). */
  constructor(store: Store, options: { onChanged?: (change: ChangedTool) => void } = {}) {
    this.#db = store.db as unknown as Db;
    this.#audit = new AuditLog(store);
    this.#onChanged = options.onChanged;
  }

  /** The names of the listed tools whose definition differs from the accepted one. */
  async review(upstream: string, tools: readonly Tool[]): Promise<Set<string>> {
    const rows = new Map(
      (await this.#db.selectFrom('gateway_tool_definitions').selectAll().where('upstream', '=', upstream).execute()).map((r) => [
        r.tool,
        r,
      ]),
    );
    const held = new Set<string>();
    const now = new Date().toISOString();
    for (const tool of tools) {
      const hash = definitionHash(tool);
      const row = rows.get(tool.name);
      if (!row) {
        await this.#db
          .insertInto('gateway_tool_definitions')
          .values({
            upstream,
            tool: tool.name,
            accepted_hash: hash,
            accepted_definition: canonicalJson(definitionOf(tool)),
            accepted_at: now,
            accepted_by: 'first sight',
            changed_hash: null,
            changed_definition: null,
            changed_at: null,
          })
          .onConflict((c) => c.doNothing())
          .execute();
        continue;
      }
      if (row.accepted_hash === hash) continue;
      held.add(tool.name);
      if (row.changed_hash === hash) continue;
      await this.#db
        .updateTable('gateway_tool_definitions')
        .set({ changed_hash: hash, changed_definition: canonicalJson(definitionOf(tool)), changed_at: now })
        .where('upstream', '=', upstream)
        .where('tool', '=', tool.name)
        .execute();
      await this.#audit.append({
        type: 'tool_definition_changed',
        actor: agentActor(`gateway-${upstream}`),
        payload: { upstream, tool: tool.name, acceptedHash: row.accepted_hash, changedHash: hash },
      });
      this.#onChanged?.({
        upstream,
        tool: tool.name,
        acceptedHash: row.accepted_hash,
        changedHash: hash,
        accepted: JSON.parse(row.accepted_definition),
        changed: definitionOf(tool),
        changedAt: now,
      });
    }
    return held;
  }

  /** Changed definitions waiting for an admin. */
  async changed(): Promise<ChangedTool[]> {
    const rows = await this.#db.selectFrom('gateway_tool_definitions').selectAll().where('changed_hash', 'is not', null).execute();
    return rows.map(changeOf);
  }

  /** Changed definitions no process has announced to admins yet (whichever process recorded them). */
  async unannounced(): Promise<ChangedTool[]> {
    const rows = await this.#db
      .selectFrom('gateway_tool_definitions')
      .selectAll()
      .where('changed_hash', 'is not', null)
      .where((eb) => eb.or([eb('announced_hash', 'is', null), eb('announced_hash', '!=', eb.ref('changed_hash'))]))
      .execute();
    return rows.map(changeOf);
  }

  /** Claims the announcement of `change`: true for exactly one caller across every process on the store. */
  async claimNotice(change: ChangedTool): Promise<boolean> {
    const claimed = await this.#db
      .updateTable('gateway_tool_definitions')
      .set({ announced_hash: change.changedHash })
      .where('upstream', '=', change.upstream)
      .where('tool', '=', change.tool)
      .where('changed_hash', '=', change.changedHash)
      .where((eb) => eb.or([eb('announced_hash', 'is', null), eb('announced_hash', '!=', change.changedHash)]))
      .executeTakeFirst();
    return Number(claimed.numUpdatedRows) === 1;
  }

  /**
   * An admin accepts the changed definition of one tool; the audit names them and the door
   * (`via`: cli, web). `expectedHash`: the definition the admin reviewed; if the upstream changed
   * it again since, nothing is accepted.
   */
  async accept(
    upstream: string,
    tool: string,
    by: { actor: string; username: string; via?: string },
    expectedHash?: string,
  ): Promise<ChangedTool> {
    const change = (await this.changed()).find((c) => c.upstream === upstream && c.tool === tool);
    if (!change) throw GatewayErrors.GATEWAY_TOOL_CHANGE_NOT_FOUND({ upstream, tool });
    if (expectedHash !== undefined && expectedHash !== change.changedHash)
      throw GatewayErrors.GATEWAY_TOOL_CHANGE_STALE({ upstream, tool });
    await this.#db
      .updateTable('gateway_tool_definitions')
      .set({
        accepted_hash: change.changedHash,
        accepted_definition: canonicalJson(change.changed),
        accepted_at: new Date().toISOString(),
        accepted_by: by.username,
        changed_hash: null,
        changed_definition: null,
        changed_at: null,
      })
      .where('upstream', '=', upstream)
      .where('tool', '=', tool)
      .where('changed_hash', '=', change.changedHash)
      .execute();
    await this.#audit.append({
      type: 'tool_definition_accepted',
      actor: by.actor,
      payload: {
        upstream,
        tool,
        acceptedHash: change.changedHash,
        previousHash: change.acceptedHash,
        by: by.username,
        ...(by.via ? { via: by.via } : {}),
      },
    });
    return change;
  }
}

function changeOf(row: DefinitionRow): ChangedTool {
  return {
    upstream: row.upstream,
    tool: row.tool,
    acceptedHash: row.accepted_hash,
    changedHash: row.changed_hash!,
    accepted: JSON.parse(row.accepted_definition),
    changed: JSON.parse(row.changed_definition!),
    changedAt: row.changed_at!,
  };
}
