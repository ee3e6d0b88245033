import { openOpsgate } from '../../app/open-opsgate.ts';
import { UserRepository } from '../../core/identity/users.ts';
import { terminalSafeLine } from '../../core/text/index.ts';
import { resolveCliIdentity } from '../cli-identity.ts';
import { type CliCommand, UsageError } from '../command.ts';
import { parseCommandArgs } from '../parse-args.ts';

const usage = `Usage: opsgate sessions list [--user NAME] [--all] [--agent NAME] [--json]

Lists sessions, newest first: id, agent, status (waiting = needs a decision), phase, steps, title.
  --user NAME   whose sessions (default: $OPSGATE_USER, then $USER)
  --all         every user's sessions (the user must be an approver or admin)
  --agent NAME  only this agent's sessions
  --json        JSON instead of a table`;

export const sessionsCommand: CliCommand = {
  name: 'sessions',
  summary: 'list sessions and what they wait for',
  usage,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(
      args,
      { user: { type: 'string' }, all: { type: 'boolean' }, agent: { type: 'string' }, json: { type: 'boolean' } },
      true,
    );
    if (positionals[0] !== 'list' || positionals.length > 1) throw new UsageError('expected "opsgate sessions list"');
    const opsgate = await openOpsgate({ env: io.env });
    try {
      const { identity } = await resolveCliIdentity(io, new UserRepository(opsgate.store), values.user);
      const sessions = await opsgate.runtime.listSessions(identity, {
        all: values.all ?? false,
        ...(values.agent ? { agent: values.agent } : {}),
      });
      if (values.json) {
        io.stdout.write(`${JSON.stringify(sessions, null, 2)}\n`);
        return 0;
      }
      if (sessions.length === 0) {
        io.stdout.write('no sessions\n');
        return 0;
      }
      io.stdout.write(
        `${'ID'.padEnd(36)}  ${'AGENT'.padEnd(12)} ${'USER'.padEnd(12)} ${'STATUS'.padEnd(8)} ${'PHASE'.padEnd(18)} STEPS  TITLE\n`,
      );
      for (const s of sessions) {
        io.stdout.write(
          `${s.id.padEnd(36)}  ${s.agent.padEnd(12)} ${s.username.padEnd(12)} ${s.status.padEnd(8)} ${s.phase.padEnd(18)} ${String(s.steps).padStart(5)}  ${terminalSafeLine(s.title)}\n`,
        );
      }
      return 0;
    } finally {
      await opsgate.close();
    }
  },
};
