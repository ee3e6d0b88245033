import type { Clock } from '../../../core/agent/define-agent.ts';
import type { Store } from '../../../core/store/index.ts';
import type { RiskAssessment, ToolContext, ValidatorVerdict } from '../../../core/tools/index.ts';
import { TroubleshootErrors } from '../errors.ts';
import type { CommandHistory } from '../history/command-history.ts';
import type { Host, HostRepository } from '../hosts/host-repository.ts';
import type { ShellPool } from '../ssh/shell-pool.ts';

/** The OS rules a command is checked against (AR-06). Unknown hosts get the Linux rules. */
export type ValidatorOs = 'linux' | 'windows';

/** Checks one command line; `CommandValidator` behind it. */
export type CommandCheck = (command: string, os: ValidatorOs) => ValidatorVerdict | Promise<ValidatorVerdict>;

/** Scores one command line's risk from what it does (risk/command-risk.ts). */
type CommandRisk = (command: string, os: ValidatorOs) => RiskAssessment;

/** How a call was approved, as the runtime's approval middleware saw it. */
export interface ApprovalInfo {
  readonly approvedBy: string;
  readonly rule?: string;
}

/** Everything the troubleshoot tools share; built once in the agent's `setup`. */
export interface TroubleshootDeps {
  readonly store: Store;
  readonly hosts: HostRepository;
  readonly history: CommandHistory;
  readonly shells: ShellPool;
  readonly checkCommand: CommandCheck;
  readonly assessRisk: CommandRisk;
  /** Approvals seen by the agent's middleware, by tool call id. */
  readonly approvals: Map<string, ApprovalInfo>;
  readonly clock: Clock;
  /** After this a command returns `still_running` (AR-12). Default 2 minutes. */
  readonly softTimeoutMs: number;
}

export function validatorOs(host: Host): ValidatorOs {
  return host.os === 'windows' ? 'windows' : 'linux';
}

const STATE_HOST = 'troubleshootHost';

/** The host a call is about: the named one, else the session's current host, else the only host. */
export async function resolveHost(deps: TroubleshootDeps, name: string | undefined, context: ToolContext): Promise<Host> {
  const chosen = name ?? (typeof context.state[STATE_HOST] === 'string' ? (context.state[STATE_HOST] as string) : undefined);
  if (chosen) {
    const host = await deps.hosts.get(chosen);
    context.state[STATE_HOST] = host.name;
    return host;
  }
  const all = await deps.hosts.list();
  if (all.length === 1) {
    context.state[STATE_HOST] = all[0]!.name;
    return all[0]!;
  }
  throw TroubleshootErrors.HOST_INPUT_INVALID({
    detail:
      all.length === 0
        ? 'No host is registered. Ask the person to add one (`opsgate hosts add`).'
        : `Name the host: one of ${all.map((h) => h.name).join(', ')}.`,
  });
}

/** Sends every byte of the shell to the session's event stream (`terminal.output`). */
export function terminalEmitter(context: ToolContext, host: Host): (chunk: string) => void {
  return (chunk) => context.events.emit('terminal.output', { host: host.name, data: chunk });
}
