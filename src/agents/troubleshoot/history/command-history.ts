import type { Kysely, Selectable } from 'kysely';
import type { FeedbackTable, Store } from '../../../core/store/index.ts';
import { type TroubleshootTables, troubleshootDb } from '../hosts/host-repository.ts';

export type CommandStatus = 'proposed' | 'blocked' | 'approved' | 'still_running' | 'executed' | 'failed';

export interface CommandHistoryEntry {
  readonly id: number;
  readonly sessionId: string;
  readonly hostId: number;
  readonly userId: number;
  readonly toolCallId: string;
  readonly command: string;
  readonly status: CommandStatus;
  readonly exitStatus: number | null;
  readonly durationMs: number | null;
  readonly outputSha256: string | null;
  readonly outputExcerpt: string | null;
  readonly proposedAt: string;
  readonly approvedAt: string | null;
  readonly executedAt: string | null;
  readonly approver: string | null;
  readonly autoApproveRule: string | null;
}

export interface FeedbackHistoryItem {
  readonly command: string;
  readonly status: string;
  readonly exitStatus: number | null;
  readonly rating: number | null;
  readonly comment: string | null;
  readonly at: string;
}

/** The spec's `command_history` table (AR-02): one row per proposed command, updated as it moves on. */
export class CommandHistory {
  readonly #db: Kysely<TroubleshootTables & { feedback: FeedbackTable }>;

  constructor(store: Store) {
    this.#db = troubleshootDb(store).withTables<{ feedback: FeedbackTable }>();
  }

  async findByCall(toolCallId: string): Promise<CommandHistoryEntry | undefined> {
    const row = await this.#db
      .selectFrom('command_history')
      .selectAll()
      .where('tool_call_id', '=', toolCallId)
      .orderBy('id', 'desc')
      .executeTakeFirst();
    return row ? toEntry(row) : undefined;
  }

  async findLatestForHost(sessionId: string, hostId: number): Promise<CommandHistoryEntry | undefined> {
    const row = await this.#db
      .selectFrom('command_history')
      .selectAll()
      .where('session_id', '=', sessionId)
      .where('host_id', '=', hostId)
      .orderBy('id', 'desc')
      .executeTakeFirst();
    return row ? toEntry(row) : undefined;
  }

  async getById(id: number): Promise<CommandHistoryEntry | undefined> {
    const row = await this.#db.selectFrom('command_history').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toEntry(row) : undefined;
  }

  /** Records a proposal once per tool call; returns the row and whether it was new. */
  async propose(input: {
    sessionId: string;
    hostId: number;
    userId: number;
    toolCallId: string;
    command: string;
    status: 'proposed' | 'blocked';
    at: string;
  }): Promise<{ entry: CommandHistoryEntry; created: boolean }> {
    const existing = await this.findByCall(input.toolCallId);
    if (existing && existing.command === input.command) return { entry: existing, created: false };
    await this.#db
      .insertInto('command_history')
      .values({
        session_id: input.sessionId,
        host_id: input.hostId,
        user_id: input.userId,
        tool_call_id: input.toolCallId,
        command: input.command,
        status: input.status,
        exit_status: null,
        duration_ms: null,
        output_sha256: null,
        output_excerpt: null,
        proposed_at: input.at,
        approved_at: null,
        executed_at: null,
        approver: null,
        auto_approve_rule: null,
      })
      .execute();
    return { entry: (await this.findByCall(input.toolCallId))!, created: true };
  }

  async setStatus(id: number, status: CommandStatus): Promise<void> {
    await this.#db.updateTable('command_history').set({ status }).where('id', '=', id).execute();
  }

  async approve(id: number, input: { at: string; approver: string | null; rule: string | null }): Promise<void> {
    await this.#db
      .updateTable('command_history')
      .set({ status: 'approved', approved_at: input.at, approver: input.approver, auto_approve_rule: input.rule })
      .where('id', '=', id)
      .execute();
  }

  async finish(
    id: number,
    input: {
      status: CommandStatus;
      exitStatus: number | null;
      durationMs: number;
      outputSha256: string;
      outputExcerpt: string;
      executedAt: string;
    },
  ): Promise<void> {
    await this.#db
      .updateTable('command_history')
      .set({
        status: input.status,
        exit_status: input.exitStatus,
        duration_ms: Math.round(input.durationMs),
        output_sha256: input.outputSha256,
        output_excerpt: input.outputExcerpt,
        executed_at: input.executedAt,
      })
      .where('id', '=', id)
      .execute();
  }

  async listForSession(sessionId: string): Promise<CommandHistoryEntry[]> {
    const rows = await this.#db.selectFrom('command_history').selectAll().where('session_id', '=', sessionId).orderBy('id').execute();
    return rows.map(toEntry);
  }

  /**
   * Commands run on a host before, with the thumbs a person gave them (feedback targets the tool
   * call id) — failures and thumbs-down first, so the agent avoids repeating them (AR-10).
   */
  async feedbackForHost(hostId: number, limit = 20): Promise<FeedbackHistoryItem[]> {
    const rows = await this.#db
      .selectFrom('command_history')
      .leftJoin('feedback', 'feedback.target', 'command_history.tool_call_id')
      .select([
        'command_history.command as command',
        'command_history.status as status',
        'command_history.exit_status as exit_status',
        'command_history.proposed_at as proposed_at',
        'feedback.rating as rating',
        'feedback.comment as comment',
      ])
      .where('command_history.host_id', '=', hostId)
      .where((eb) =>
        eb.or([
          eb('feedback.rating', 'is not', null),
          eb('command_history.exit_status', '!=', 0),
          eb('command_history.status', 'in', ['blocked', 'failed']),
        ]),
      )
      .orderBy('command_history.id', 'desc')
      .limit(limit)
      .execute();
    const items = rows.map((row) => ({
      command: row.command,
      status: row.status,
      exitStatus: row.exit_status === null ? null : Number(row.exit_status),
      rating: row.rating === null ? null : Number(row.rating),
      comment: row.comment,
      at: row.proposed_at,
    }));
    const badness = (item: FeedbackHistoryItem) => (item.rating !== null && item.rating < 0 ? 0 : item.exitStatus !== 0 ? 1 : 2);
    return items.sort((a, b) => badness(a) - badness(b));
  }
}

function toEntry(row: Selectable<TroubleshootTables['command_history']>): CommandHistoryEntry {
  return {
    id: Number(row.id),
    sessionId: row.session_id,
    hostId: Number(row.host_id),
    userId: Number(row.user_id),
    toolCallId: row.tool_call_id,
    command: row.command,
    status: row.status as CommandStatus,
    exitStatus: row.exit_status === null ? null : Number(row.exit_status),
    durationMs: row.duration_ms === null ? null : Number(row.duration_ms),
    outputSha256: row.output_sha256,
    outputExcerpt: row.output_excerpt,
    proposedAt: row.proposed_at,
    approvedAt: row.approved_at,
    executedAt: row.executed_at,
    approver: row.approver,
    autoApproveRule: row.auto_approve_rule,
  };
}
