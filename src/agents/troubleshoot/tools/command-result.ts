import { createHash } from 'node:crypto';
import type { ToolContext } from '../../../core/tools/index.ts';
import type { Host } from '../hosts/host-repository.ts';
import { errorKeywordHint, toModelText } from '../output/model-output.ts';
import type { CommandOutcome } from '../ssh/shell-session.ts';
import type { TroubleshootDeps } from './deps.ts';

/** Name of the read-only tool that continues a command past its soft timeout. */
export const READ_OUTPUT_TOOL = 'read_output';

/** What the model reads after a command (sanitised; the raw bytes went to the terminal events). */
export interface CommandResult {
  readonly host: string;
  readonly command: string;
  readonly status: 'completed' | 'still_running';
  readonly exit_status: number | null;
  readonly duration_ms: number;
  /** Completed: the whole output. Read again via read_output: only what is new. */
  readonly output?: string;
  /** still_running: what the command printed so far. */
  readonly output_so_far?: string;
  readonly truncated: boolean;
  readonly error_keywords: readonly string[];
  readonly pager_quits: number;
  readonly output_sha256?: string;
  readonly note?: string;
  /**
   * Present when `status` is `still_running` (AR-12): the runtime raises a `ContinueInterrupt`
   * ("Read Output & Continue") with `message`; on the person's `continue` decision the agent calls
   * `tool` with `args` to read what came since.
   */
  readonly continue?: {
    readonly interrupt: 'continue';
    readonly message: string;
    readonly tool: string;
    readonly args: { readonly host: string };
  };
}

/** Per-session memory of the command that outlived its soft timeout, so read_output can finish its record. */
export const STATE_RUNNING = 'troubleshootRunning';

export interface RunningRecord {
  readonly historyId: number;
  readonly host: string;
  readonly command: string;
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * Stores the outcome in `command_history`, audits `command_executed` when the command finished
 * (exact bytes, exit status, duration, output hash — AR-02), and builds the model's view.
 */
export async function recordOutcome(
  deps: TroubleshootDeps,
  context: ToolContext,
  host: Host,
  historyId: number,
  outcome: CommandOutcome,
  view: 'all' | 'new',
): Promise<CommandResult> {
  const full = toModelText(outcome.output);
  const shown = view === 'all' ? full : toModelText(outcome.newOutput);
  const outputSha256 = sha256(outcome.output);
  const at = deps.clock.now().toISOString();
  if (outcome.status === 'completed') {
    await deps.history.finish(historyId, {
      status: 'executed',
      exitStatus: outcome.exitStatus,
      durationMs: outcome.durationMs,
      outputSha256,
      outputExcerpt: full.output,
      executedAt: at,
    });
    await context.audit('command_executed', {
      host: host.name,
      command: outcome.command,
      exit_status: outcome.exitStatus,
      duration_ms: Math.round(outcome.durationMs),
      output_sha256: outputSha256,
      output_characters: outcome.output.length,
      pager_quits: outcome.pagerQuits,
      history_id: historyId,
    });
    if (context.state[STATE_RUNNING]) delete context.state[STATE_RUNNING];
  } else {
    await deps.history.finish(historyId, {
      status: 'still_running',
      exitStatus: null,
      durationMs: outcome.durationMs,
      outputSha256,
      outputExcerpt: full.output,
      executedAt: at,
    });
    const record: RunningRecord = { historyId, host: host.name, command: outcome.command };
    context.state[STATE_RUNNING] = record;
  }
  const hint = errorKeywordHint(full.errorKeywords);
  const base = {
    host: host.name,
    command: outcome.command,
    status: outcome.status,
    exit_status: outcome.exitStatus,
    duration_ms: Math.round(outcome.durationMs),
    truncated: shown.truncated,
    error_keywords: full.errorKeywords,
    pager_quits: outcome.pagerQuits,
  };
  if (outcome.status === 'completed') {
    return { ...base, output: shown.output, output_sha256: outputSha256, ...(hint ? { note: hint } : {}) };
  }
  const seconds = Math.round(outcome.durationMs / 1000);
  const message = `"${outcome.command}" is still running on ${host.name} after ${seconds} s. Read the output so far and continue waiting, or stop here.`;
  return {
    ...base,
    output_so_far: shown.output,
    note: `The command is still running. Call ${READ_OUTPUT_TOOL} to read what it prints next; do not propose another command on ${host.name} until it finishes.`,
    continue: { interrupt: 'continue', message, tool: READ_OUTPUT_TOOL, args: { host: host.name } },
  };
}
