import { createInterface } from 'node:readline';
import { agents } from '../../agents/index.ts';
import { openOpsgate } from '../../app/open-opsgate.ts';
import { OpsgateError } from '../../core/errors/index.ts';
import type { Identity } from '../../core/identity/index.ts';
import { UserRepository } from '../../core/identity/users.ts';
import type { Decision, Interrupt, Runtime, SessionSnapshot, TurnResult } from '../../core/runtime/index.ts';
import { resolveCliIdentity } from '../cli-identity.ts';
import { type CliCommand, type CliIo, UsageError } from '../command.ts';
import { parseCommandArgs } from '../parse-args.ts';
import { formatInterrupt, formatMessages } from './chat-format.ts';
import { chatOptions } from './chat-options.ts';

const usage = `Usage: opsgate chat --agent NAME [--user NAME] [--session ID] [--db FILE] [--option KEY=VALUE …]
                    [--agent-option KEY=VALUE …]
                    [--agent-mode] [--auto-approve]

Talk to an agent at the terminal. Read-only tools run at once; a state-changing call stops and
asks you. At an approval prompt answer:
  yes | no [reason] | modify {json arguments}
At a question: yes | no | skip | any other text (a custom answer). At "still running": continue.
Type /help for the commands the offline interpreter understands, /quit to leave.

Options:
  --agent NAME        ${agents.map((agent) => agent.name).join(' | ')} (see opsgate --help)
  --user NAME         who you are in local mode (default: $OPSGATE_USER, then $USER); created as a
                      user if new. With OPSGATE_TOKEN set you are the token's owner instead
  --session ID        continue an existing session
  --db FILE           sandbox: the SQLite database to work on
  --option KEY=VALUE  session option (repeatable), e.g. --option hostId=1
  --agent-option KEY=VALUE
                      option of the agent's setup (repeatable; what setup reads as context.options), e.g. --agent-option db=demo.db
  --agent-mode        troubleshoot Agent Mode (AR-03)
  --auto-approve      with --agent-mode: run validator-allowed commands without asking (audited)`;

function parseDecision(interrupt: Interrupt, line: string): Decision | undefined {
  const text = line.trim();
  if (interrupt.type === 'approval') {
    const modify = /^modify\s+(\{[\s\S]*\})$/i.exec(text);
    if (modify) {
      try {
        return { type: 'modify', callId: interrupt.callId, args: JSON.parse(modify[1]!) as Record<string, unknown> };
      } catch {
        throw new UsageError('modify needs JSON arguments, e.g. modify {"amount": 10}');
      }
    }
    const reject = /^(?:no|reject)\b[\s,:-]*(.*)$/i.exec(text);
    if (reject) return { type: 'reject', callId: interrupt.callId, reason: reject[1] || 'declined at the terminal' };
  }
  return undefined;
}

async function chatLoop(runtime: Runtime, session: SessionSnapshot, identity: Identity, io: CliIo): Promise<void> {
  let current = session;
  const write = (text: string) => io.stdout.write(text);
  const unsubscribe = runtime.events.subscribe(session.id, (event) => {
    if (event.type === 'terminal.output') {
      const data = event.data as { data?: string };
      if (typeof data?.data === 'string') write(data.data);
    }
  });
  const show = (result: TurnResult) => {
    write(formatMessages(result.messages));
    if (result.interrupt) write(formatInterrupt(result.interrupt));
    current = result.session;
  };
  if (current.interrupt) write(formatInterrupt(current.interrupt));
  write('you> ');
  const lines = createInterface({ input: io.stdin, terminal: false });
  try {
    for await (const line of lines) {
      const text = line.trim();
      if (text === '/quit' || text === '/exit') break;
      if (text) {
        try {
          const decision = current.interrupt ? parseDecision(current.interrupt, text) : undefined;
          show(decision ? await runtime.decide(current.id, decision, identity) : await runtime.send(current.id, text, identity));
        } catch (error) {
          if (error instanceof UsageError) write(`! ${error.message}\n`);
          else if (OpsgateError.isInstance(error)) write(`! ${error.message} [${error.code}]\n`);
          else throw error;
          current = await runtime.getSession(current.id, identity);
        }
      }
      write('you> ');
    }
  } finally {
    unsubscribe();
    lines.close();
    write('\n');
  }
}

export const chatCommand: CliCommand = {
  name: 'chat',
  summary: 'talk to an agent at the terminal; approvals and questions answered at the prompt',
  usage,
  async run(args, io) {
    const { values } = parseCommandArgs(args, {
      agent: { type: 'string' },
      user: { type: 'string' },
      session: { type: 'string' },
      db: { type: 'string' },
      option: { type: 'string', multiple: true },
      'agent-option': { type: 'string', multiple: true },
      'agent-mode': { type: 'boolean' },
      'auto-approve': { type: 'boolean' },
    });
    if (!values.agent && !values.session) throw new UsageError('--agent NAME is required (or --session ID to continue one)');
    const { agentOptions, sessionOptions } = chatOptions(values);

    const opsgate = await openOpsgate({
      env: io.env,
      ...(values.agent && Object.keys(agentOptions).length > 0 ? { agentOptions: { [values.agent]: agentOptions } } : {}),
    });
    try {
      const known = opsgate.runtime.agents().map((a) => a.name);
      if (values.agent && !known.includes(values.agent))
        throw new UsageError(`unknown agent "${values.agent}"; agents: ${known.join(', ') || '(none)'}`);
      const { identity } = await resolveCliIdentity(io, new UserRepository(opsgate.store), values.user, { createIfMissing: true });
      const session = values.session
        ? await opsgate.runtime.getSession(values.session, identity)
        : await opsgate.runtime.startSession({ agent: values.agent!, identity, options: sessionOptions });
      const notice = opsgate.runtime.agents().find((a) => a.name === session.agent)?.notice;
      io.stdout.write(
        `opsgate chat — agent ${session.agent}, user ${identity.username}, model: ${opsgate.modelDescription}\n${notice ? `note: ${notice}\n` : ''}session ${session.id} · /help for commands, /quit to leave\n`,
      );
      await chatLoop(opsgate.runtime, session, identity, io);
      return 0;
    } finally {
      await opsgate.close();
    }
  },
};
