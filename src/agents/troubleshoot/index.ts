import type { AgentParts, AgentSetupContext } from '../../core/agent/define-agent.ts';
import { defineAgent } from '../../core/agent/define-agent.ts';
import { CommandHistory } from './history/command-history.ts';
import { HostRepository } from './hosts/host-repository.ts';
import { troubleshootInterpreter } from './intents.ts';
import { agentModeAutoApprove, approvalRecorder, type SyncCommandCheck } from './policy/policy.ts';
import { MAX_ITERATIONS, TROUBLESHOOT_INSTRUCTIONS } from './prompt.ts';
import { createCommandRiskAssessor } from './risk.ts';
import { ShellPool } from './ssh/shell-pool.ts';
import { troubleshootMigrations } from './store/migrations.ts';
import type { ApprovalInfo, CommandCheck, TroubleshootDeps } from './tools/deps.ts';
import { detectOsTool } from './tools/detect-os.ts';
import { getFeedbackHistoryTool } from './tools/get-feedback-history.ts';
import { listHostsTool } from './tools/list-hosts.ts';
import { readOutputTool } from './tools/read-output.ts';
import { suggestSshCommandTool } from './tools/suggest-ssh-command.ts';

export { TroubleshootErrors } from './errors.ts';
export { HostRepository } from './hosts/host-repository.ts';
export { MAX_ITERATIONS } from './prompt.ts';
export { probeHostKey } from './ssh/ssh-connect.ts';
export { troubleshootMigrations } from './store/migrations.ts';

/**
 * The troubleshoot agent: SSH commands on registered hosts, each approved and run in a visible
 * shell, with the 5-phase protocol (AR-18) and at most `MAX_ITERATIONS` steps (AR-17).
 * Options: `softTimeoutSeconds` (default 120, AR-12).
 */
export const troubleshootAgent = defineAgent({
  name: 'troubleshoot',
  title: 'Troubleshoot',
  description: `Diagnose and fix servers over SSH: every command is checked by the validator, approved by a person, run in a visible terminal and audited. Steps per turn: ${MAX_ITERATIONS}.`,
  instructions: TROUBLESHOOT_INSTRUCTIONS,
  pillars: ['troubleshoot', 'revive'],
  stepLimit: MAX_ITERATIONS,
  migrations: troubleshootMigrations,
  setup: (context) => createTroubleshootParts(context),
});

/** Default soft timeout of a command before "Read Output & Continue" (AR-12): 2 minutes. */
const DEFAULT_SOFT_TIMEOUT_MS = 120_000;

export interface TroubleshootOverrides {
  readonly checkCommand?: CommandCheck;
  readonly checkCommandSync?: SyncCommandCheck;
  /** Default: option `softTimeoutSeconds`, else 2 minutes. */
  readonly softTimeoutMs?: number;
  readonly idleMs?: number;
}

export interface TroubleshootParts extends AgentParts {
  readonly deps: TroubleshootDeps;
}

function softTimeoutFrom(options: Readonly<Record<string, string>>): number {
  const raw = options.softTimeoutSeconds;
  if (raw === undefined) return DEFAULT_SOFT_TIMEOUT_MS;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 86_400) {
    throw new Error(`troubleshoot option softTimeoutSeconds must be a number of seconds between 1 and 86400, got "${raw}"`);
  }
  return seconds * 1000;
}

/** Builds the troubleshoot agent's tools, policy and interpreter over a store and a secret store. */
export async function createTroubleshootParts(
  context: AgentSetupContext,
  overrides: TroubleshootOverrides = {},
): Promise<TroubleshootParts> {
  await context.store.migrate(troubleshootMigrations);
  const hosts = new HostRepository(context.store, context.secrets, context.clock);
  // Loaded lazily: the tree-sitter grammar is only compiled when the real validator is wanted.
  const validator = overrides.checkCommand ? undefined : await (await import('./policy/command-check.ts')).createCommandCheck();
  const checkCommand = overrides.checkCommand ?? validator!.check;
  const checkCommandSync = overrides.checkCommandSync ?? validator?.checkSync;
  const risk = await createCommandRiskAssessor();
  const approvals = new Map<string, ApprovalInfo>();
  const shells = new ShellPool({ hosts, ...(overrides.idleMs !== undefined ? { idleMs: overrides.idleMs } : {}) });
  const deps: TroubleshootDeps = {
    store: context.store,
    hosts,
    history: new CommandHistory(context.store),
    shells,
    checkCommand,
    assessRisk: (command, os) => risk.assess(command, os),
    approvals,
    clock: context.clock,
    softTimeoutMs: overrides.softTimeoutMs ?? softTimeoutFrom(context.options),
  };
  return {
    deps,
    tools: [listHostsTool(deps), detectOsTool(deps), getFeedbackHistoryTool(deps), suggestSshCommandTool(deps), readOutputTool(deps)],
    workflow: {
      phases: [
        { name: 'identify', title: 'Identify' },
        { name: 'verify', title: 'Verify (OS / target)' },
        { name: 'investigate', title: 'Investigate' },
        { name: 'plan', title: 'Plan' },
        { name: 'act', title: 'Act' },
      ],
    },
    // Every session follows the 5-phase protocol as workflow phases (AR-18).
    route: () => 'workflow',
    interpreter: troubleshootInterpreter(),
    middleware: [approvalRecorder(approvals)],
    autoApproveRules: [agentModeAutoApprove(checkCommandSync)],
    close: () => shells.closeAll(),
  };
}
