import { z } from 'zod';
import { ToolContinuation } from '../../../core/runtime/tool-continuation.ts';
import { type ApprovalPreview, defineTool, type ToolContext, type ValidatorVerdict } from '../../../core/tools/index.ts';
import { TroubleshootErrors } from '../errors.ts';
import type { Host } from '../hosts/host-repository.ts';
import { type CommandResult, recordOutcome } from './command-result.ts';
import { resolveHost, type TroubleshootDeps, terminalEmitter, type ValidatorOs, validatorOs } from './deps.ts';

/** Control characters other than tab and newline would act as keystrokes in the terminal. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
const KEYSTROKES = /[\u0000-\u0008\u000b-\u001f\u007f]/;

const suggestSshCommandInput = z.object({
  host: z.string().min(1).max(63).optional().describe('Registered host name (list_hosts). Default: the host of this session.'),
  command: z
    .string()
    .min(1)
    .max(8000)
    .refine((c) => !KEYSTROKES.test(c), 'must not contain control characters (other than tab and newline)')
    .describe('The exact command line to run in the visible shell.'),
  explanation: z.string().max(2000).optional().describe('Why this command, in one or two sentences (shown on the approval panel).'),
});
type SuggestSshCommandInput = z.infer<typeof suggestSshCommandInput>;

/** The host's OS as the preview recorded it; Linux before the preview exists. */
function previewOs(preview: ApprovalPreview | undefined): ValidatorOs {
  const details = preview?.details;
  return typeof details === 'object' && details !== null && (details as { os?: unknown }).os === 'windows' ? 'windows' : 'linux';
}

async function check(deps: TroubleshootDeps, host: Host, command: string): Promise<ValidatorVerdict> {
  return deps.checkCommand(command, validatorOs(host));
}

/**
 * Proposes a command for a host (AR-01, AR-05). It runs only after approval, in the session's
 * visible shell (AR-08); the validator is a floor no approval overrides (checked on proposal and
 * again on the exact bytes before they are written).
 */
export function suggestSshCommandTool(deps: TroubleshootDeps) {
  return defineTool({
    name: 'suggest_ssh_command',
    description:
      'Propose one shell command to run on a registered host. A person approves it before it runs in the visible terminal. Returns the output (ANSI-stripped, truncated at 5,000 characters), exit status and error keywords. Dangerous commands are blocked.',
    input: suggestSshCommandInput,
    mutability: 'mutable',
    risk: 'high',
    // Before the host is known (no preview yet) the line is read as bash; PowerShell reads score low there too.
    assessRisk: (input, preview) => deps.assessRisk(input.command, previewOs(preview)),
    async validate(input, context) {
      let host: Host;
      try {
        host = await resolveHost(deps, input.host, context);
      } catch (error) {
        return { verdict: 'block', rule: 'unknown-host', category: 'host', reason: error instanceof Error ? error.message : String(error) };
      }
      const verdict = await check(deps, host, input.command);
      const { entry, created } = await deps.history.propose({
        sessionId: context.sessionId,
        hostId: host.id,
        userId: context.identity.userId,
        toolCallId: context.callId,
        command: input.command,
        status: verdict.verdict === 'block' ? 'blocked' : 'proposed',
        at: deps.clock.now().toISOString(),
      });
      if (created) {
        await context.audit(verdict.verdict === 'block' ? 'command_blocked' : 'command_proposed', {
          host: host.name,
          command: input.command,
          os: validatorOs(host),
          verdict: verdict.verdict,
          ...(verdict.rule ? { rule: verdict.rule } : {}),
          ...(verdict.category ? { category: verdict.category } : {}),
          ...(input.explanation ? { explanation: input.explanation } : {}),
          history_id: entry.id,
        });
      }
      return verdict;
    },
    async preview(input, context) {
      const host = await resolveHost(deps, input.host, context);
      const verdict = await check(deps, host, input.command);
      return {
        kind: 'ssh_command',
        summary: `Run on ${host.name} (${host.username}@${host.address}:${host.port}): ${input.command}`,
        headline: `run ${input.command.length > 80 ? `${input.command.slice(0, 79)}…` : input.command} on ${host.name}`,
        details: {
          host: host.name,
          address: host.address,
          port: host.port,
          username: host.username,
          os: host.os,
          command: input.command,
          explanation: input.explanation ?? null,
          validator: { verdict: verdict.verdict, rule: verdict.rule ?? null, category: verdict.category ?? null, reason: verdict.reason },
        },
      };
    },
    /** A command past the soft timeout pauses the turn with a "Read Output & Continue" interrupt (AR-12). */
    async execute(input, context): Promise<CommandResult | ToolContinuation> {
      const result = await runApprovedCommand(deps, input, context);
      return result.continue ? new ToolContinuation(result, result.continue.message) : result;
    },
  });
}

async function runApprovedCommand(deps: TroubleshootDeps, input: SuggestSshCommandInput, context: ToolContext): Promise<CommandResult> {
  const host = await resolveHost(deps, input.host, context);
  // The floor again, on exactly the bytes about to be written.
  const verdict = await check(deps, host, input.command);
  const proposal = await deps.history.propose({
    sessionId: context.sessionId,
    hostId: host.id,
    userId: context.identity.userId,
    toolCallId: context.callId,
    command: input.command,
    status: verdict.verdict === 'block' ? 'blocked' : 'proposed',
    at: deps.clock.now().toISOString(),
  });
  if (verdict.verdict === 'block') {
    await deps.history.setStatus(proposal.entry.id, 'blocked');
    await context.audit('command_blocked', {
      host: host.name,
      command: input.command,
      rule: verdict.rule ?? null,
      at: 'execute',
      history_id: proposal.entry.id,
    });
    throw TroubleshootErrors.COMMAND_BLOCKED({ os: validatorOs(host), rule: verdict.rule ?? 'blocklist', reason: verdict.reason });
  }
  const approval = deps.approvals.get(context.callId);
  deps.approvals.delete(context.callId);
  const approvedAt = deps.clock.now().toISOString();
  await deps.history.approve(proposal.entry.id, { at: approvedAt, approver: approval?.approvedBy ?? null, rule: approval?.rule ?? null });
  await context.audit('command_approved', {
    host: host.name,
    command: input.command,
    approved_by: approval?.approvedBy ?? null,
    ...(approval?.rule ? { rule: approval.rule } : {}),
    history_id: proposal.entry.id,
  });
  const shell = await deps.shells.shellFor(context.sessionId, host, terminalEmitter(context, host));
  if (shell.busy) throw TroubleshootErrors.SHELL_BUSY({ host: host.name });
  const outcome = await shell.run(input.command, { softTimeoutMs: deps.softTimeoutMs, signal: context.signal });
  return recordOutcome(deps, context, host, proposal.entry.id, outcome, 'all');
}
