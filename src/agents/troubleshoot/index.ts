import { defineAgent } from '../../core/agent/define-agent.ts';
import { troubleshootMigrations } from './migrations.ts';
import { createTroubleshootParts } from './parts.ts';
import { MAX_ITERATIONS, TROUBLESHOOT_INSTRUCTIONS } from './prompt.ts';

export { TroubleshootErrors } from './errors.ts';
export { CommandHistory } from './history/command-history.ts';
export { type AddHostInput, type Host, HostRepository } from './hosts/host-repository.ts';
export { troubleshootMigrations } from './migrations.ts';
export { createTroubleshootParts, DEFAULT_SOFT_TIMEOUT_MS } from './parts.ts';
export { AUTO_APPROVE_RULE, agentModeAutoApprove } from './policy.ts';
export { MAX_ITERATIONS, TROUBLESHOOT_INSTRUCTIONS } from './prompt.ts';
export { ShellSession } from './ssh/shell-session.ts';
export { probeHostKey, sshFingerprint } from './ssh/ssh-connect.ts';

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
  migrations: troubleshootMigrations,
  setup: (context) => createTroubleshootParts(context),
});
