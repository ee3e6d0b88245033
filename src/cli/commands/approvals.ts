import { createInterface } from 'node:readline';
import { openOpsgate } from '../../app/open-opsgate.ts';
import type { Identity } from '../../core/identity/index.ts';
import { UserRepository } from '../../core/identity/users.ts';
import { approvalNeedsConfirmation, approvalTitle, type PendingApproval, type Runtime } from '../../core/runtime/index.ts';
import { terminalSafe } from '../../core/text/index.ts';
import { explainedDecisionError } from '../../gateway/decision-errors.ts';
import { localModeNotice, resolveCliIdentity } from '../cli-identity.ts';
import { type CliCommand, type CliIo, UsageError } from '../command.ts';
import { parseCommandArgs } from '../parse-args.ts';

const usage = `Usage: opsgate approvals list [--user NAME] [--history] [--json]
       opsgate approvals show CALL_ID [--user NAME]
       opsgate approvals approve CALL_ID [--yes] [--user NAME]
       opsgate approvals reject CALL_ID [--reason TEXT] [--user NAME]

The approver's inbox at the terminal, on the data store (OPSGATE_DATA_DIR / OPSGATE_DATABASE_URL).
list     calls waiting for approval in the sessions NAME may see; "*" marks those the policy lets
         NAME approve. --history lists decided approvals instead, newest first.
show     one pending call: tool, exact arguments, risk, policy and who can approve.
approve  approves as NAME; exit 1 with the reason and who can approve when the policy refuses.
         A high or critical request is shown first and approved only when you type "yes"
         (as the web inbox and Slack ask); --yes skips the question, for scripts.
reject   rejects as NAME with a reason.
  --user NAME   who acts in local mode (default: $OPSGATE_USER, then $USER)

Who you are: set OPSGATE_TOKEN to an API token (opsgate users token NAME, or the web Admin page)
and the command acts as its owner, as the server would. Without it the command runs in local mode
on the data store: the audit records the machine account that ran it, and the policy lets a
local-mode identity confirm its own calls but not approve another person's.`;

function describe(item: PendingApproval, me: string): string[] {
  const { interrupt } = item;
  return [
    `call      ${interrupt.callId}${item.mayApprove ? '  (you may approve)' : ''}`,
    `session   ${item.sessionId} (${item.agent}: ${item.title})`,
    `tool      ${interrupt.tool} (risk ${interrupt.risk})`,
    `arguments ${JSON.stringify(interrupt.args)}`,
    ...(interrupt.preview ? [`preview   ${interrupt.preview.summary}`] : []),
    `asked by  ${interrupt.requestedBy} at ${interrupt.requestedAt}`,
    `policy    ${interrupt.policyId}${interrupt.requiredApprovals > 1 ? ` (${interrupt.requiredApprovals} approvers; so far: ${interrupt.approvals.join(', ') || 'nobody'})` : ''}`,
    `approvers ${interrupt.eligibleApprovers.filter((name) => name !== me || item.mayApprove).join(', ') || 'nobody under the current policy'}`,
  ];
}

/** The first line typed on stdin, or undefined when stdin ends first (a script, a closed pipe). */
async function firstLine(stdin: NodeJS.ReadableStream): Promise<string | undefined> {
  const lines = createInterface({ input: stdin, terminal: false });
  try {
    for await (const line of lines) return line;
    return undefined;
  } finally {
    lines.close();
  }
}

/** High and critical approvals ask before they are sent: what is asked, why it is risky, then "yes". */
async function confirmed(item: PendingApproval, io: CliIo): Promise<boolean> {
  const { interrupt } = item;
  io.stdout.write(
    terminalSafe(
      `${approvalTitle(interrupt)}\n${interrupt.preview ? `${interrupt.preview.summary}\n` : ''}why ${interrupt.risk}: ${interrupt.riskReason}\n`,
    ),
  );
  io.stdout.write(`Approve this ${interrupt.risk}-risk request? Type yes to approve: `);
  const answer = (await firstLine(io.stdin))?.trim().toLowerCase();
  io.stdout.write('\n');
  return answer === 'yes' || answer === 'y';
}

async function pendingCall(runtime: Runtime, actor: Identity, callId: string | undefined): Promise<PendingApproval> {
  if (!callId) throw new UsageError('name the call: opsgate approvals show|approve|reject CALL_ID');
  const found = (await runtime.pendingApprovals(actor)).find((item) => item.interrupt.callId === callId);
  if (!found)
    throw new UsageError(`no call ${callId} waits for approval in the sessions ${actor.username} may see; see "opsgate approvals list"`);
  return found;
}

async function list(runtime: Runtime, actor: Identity, values: { history?: boolean; json?: boolean }, io: CliIo): Promise<number> {
  if (values.history) {
    const decided = await runtime.approvalHistory(actor);
    if (values.json) io.stdout.write(`${JSON.stringify(decided, null, 2)}\n`);
    else if (decided.length === 0) io.stdout.write('no decided approvals\n');
    else
      for (const d of decided)
        io.stdout.write(
          terminalSafe(
            `${d.decidedAt}  ${d.status.padEnd(9)} ${d.tool.padEnd(28)} by ${d.approvedBy ?? '-'}  asked by ${d.requestedBy}  ${d.callId}\n`,
          ),
        );
    return 0;
  }
  const pending = await runtime.pendingApprovals(actor);
  if (values.json) {
    io.stdout.write(`${JSON.stringify({ pending, waitingForMe: pending.filter((p) => p.mayApprove).length }, null, 2)}\n`);
    return 0;
  }
  io.stdout.write(`${pending.filter((p) => p.mayApprove).length} waiting for ${actor.username}, ${pending.length} pending in all\n`);
  for (const p of pending)
    io.stdout.write(
      terminalSafe(
        `${p.mayApprove ? '*' : ' '} ${p.interrupt.callId}  ${p.interrupt.tool.padEnd(28)} risk ${p.interrupt.risk.padEnd(8)} asked by ${p.interrupt.requestedBy}  ${JSON.stringify(p.interrupt.args)}\n`,
      ),
    );
  return 0;
}

/** `opsgate approvals`: list, show, approve and reject pending calls as a named person. */
export const approvalsCommand: CliCommand = {
  name: 'approvals',
  summary: "the approver's inbox: list | show | approve | reject pending calls",
  usage,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(
      args,
      {
        user: { type: 'string' },
        history: { type: 'boolean' },
        json: { type: 'boolean' },
        reason: { type: 'string' },
        yes: { type: 'boolean', short: 'y' },
      },
      true,
    );
    const [verb, callId, ...extra] = positionals;
    if (verb !== 'list' && verb !== 'show' && verb !== 'approve' && verb !== 'reject')
      throw new UsageError('expected list, show, approve or reject (see opsgate approvals --help)');
    if (extra.length > 0 || (verb === 'list' && callId !== undefined)) throw new UsageError('too many arguments');
    if (values.reason !== undefined && verb !== 'reject') throw new UsageError('--reason belongs to "approvals reject"');
    if ((values.history || values.json) && verb !== 'list') throw new UsageError('--history and --json belong to "approvals list"');
    if (values.yes && verb !== 'approve') throw new UsageError('--yes belongs to "approvals approve"');
    const opsgate = await openOpsgate({ env: io.env });
    try {
      const { identity: actor, mode } = await resolveCliIdentity(io, new UserRepository(opsgate.store), values.user);
      if (mode === 'local' && (verb === 'approve' || verb === 'reject')) io.stderr.write(localModeNotice(actor));
      const { runtime } = opsgate;
      if (verb === 'list') return await list(runtime, actor, values, io);
      const item = await pendingCall(runtime, actor, callId);
      if (verb === 'show') {
        io.stdout.write(`${terminalSafe(describe(item, actor.username).join('\n'))}\n`);
        return 0;
      }
      // Someone the policy will refuse is told so by the runtime, without a question first.
      if (verb === 'approve' && item.mayApprove && approvalNeedsConfirmation(item.interrupt.risk) && !values.yes) {
        if (!(await confirmed(item, io))) {
          io.stderr.write(
            `opsgate: not approved: ${item.interrupt.callId} still waits. Type "yes" at the question to approve it, or pass --yes.\n`,
          );
          return 1;
        }
      }
      const decision =
        verb === 'approve'
          ? ({ type: 'approve', callId: item.interrupt.callId } as const)
          : ({ type: 'reject', callId: item.interrupt.callId, ...(values.reason ? { reason: values.reason } : {}) } as const);
      const result = await runtime.decide(item.sessionId, decision, actor).catch((error: unknown) => {
        throw explainedDecisionError(error);
      });
      const call = result.session.toolCalls.find((c) => c.id === item.interrupt.callId);
      io.stdout.write(
        `${verb === 'approve' ? 'approved' : 'rejected'} ${item.interrupt.callId} (${item.interrupt.tool}): now ${call?.status ?? result.status}\n`,
      );
      return 0;
    } finally {
      await opsgate.close();
    }
  },
};
