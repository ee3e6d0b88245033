import { openOpsgate } from '../../app/open-opsgate.ts';
import { UserRepository } from '../../core/identity/users.ts';
import { createCedarPolicy, DEFAULT_POLICY_DIR, loadPolicyDirectory, type PolicyCall } from '../../core/policy/index.ts';
import type { Risk } from '../../core/tools/index.ts';
import { type CliCommand, type CliIo, UsageError } from '../command.ts';
import { parseCommandArgs } from '../parse-args.ts';

const usage = `Usage: opsgate policy check [--dir DIR]
       opsgate policy explain --user NAME --tool TOOL --args JSON [--agent NAME] [--target NAME --environment ENV] [--dir DIR]

check    validates a directory of Cedar policies (*.cedar) against opsgate's schema: syntax,
         types, and a unique @id("…") on every policy. Exit 0 valid, 1 invalid (naming the file
         and the problem). Default: OPSGATE_POLICY_DIR, else the default policy.
explain  says what would happen if NAME's session proposed TOOL with these arguments: run, ask
         (and how many approvers), auto or block, which policy decided, who may approve, and
         whether NAME may approve it themself. It reads the people from the data store
         (OPSGATE_DATA_DIR / OPSGATE_DATABASE_URL) and the tools from the agents; tool validators
         (command blocklists, read-only SQL) are not run. --target/--environment give the call's
         target as its agent would (e.g. a helm cluster and its label: context.target and
         context.environment); without them both are "".`;

function policyDir(values: { dir?: string | undefined }, io: CliIo): string {
  return values.dir ?? (io.env.OPSGATE_POLICY_DIR || DEFAULT_POLICY_DIR);
}

function parseArgsJson(text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--args must be a JSON object: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new UsageError('--args must be a JSON object, e.g. \'{"access_name":"DB_WRITE_PROD"}\'');
  return parsed as Record<string, unknown>;
}

async function explain(
  values: { dir?: string; user?: string; tool?: string; args?: string; agent?: string; target?: string; environment?: string },
  io: CliIo,
): Promise<number> {
  if (!values.user || !values.tool || values.args === undefined) throw new UsageError('policy explain needs --user, --tool and --args');
  if ((values.target === undefined) !== (values.environment === undefined))
    throw new UsageError("--target and --environment go together (the target's name and its environment label)");
  const args = parseArgsJson(values.args);
  const policy = createCedarPolicy(loadPolicyDirectory(policyDir(values, io)));
  const opsgate = await openOpsgate({ env: { ...io.env, OPSGATE_POLICY_DIR: policyDir(values, io) } });
  try {
    const tools = opsgate.runtime
      .agents()
      .filter((agent) => !values.agent || agent.name === values.agent)
      .flatMap((agent) => agent.tools.filter((tool) => tool.name === values.tool).map((tool) => ({ agent: agent.name, tool })));
    if (tools.length === 0)
      throw new UsageError(`no agent${values.agent ? ` named ${values.agent}` : ''} has a tool named "${values.tool}"`);
    if (tools.length > 1)
      throw new UsageError(`several agents have "${values.tool}" (${tools.map((t) => t.agent).join(', ')}): name one with --agent`);
    const { agent, tool } = tools[0]!;
    const users = new UserRepository(opsgate.store);
    const record = await users.findByName(values.user);
    if (!record) throw new UsageError(`there is no user named ${values.user}; list them with "opsgate users list"`);
    const user = { username: record.username, roles: record.roles };
    const call: PolicyCall = {
      tool: tool.name,
      agent,
      mutable: tool.mutability === 'mutable',
      risk: tool.risk as Risk,
      args,
      ...(values.target !== undefined && values.environment !== undefined
        ? { target: { name: values.target, environment: values.environment } }
        : {}),
    };
    const at = new Date();
    const decision = policy.decideCall({ user, call, at });
    const lines = [
      `${user.username} (${user.roles.join(', ')}) → ${agent}.${tool.name} (${tool.mutability}, risk ${tool.risk}) ${JSON.stringify(args)}${call.target ? ` on ${call.target.name} (${call.target.environment})` : ''}`,
      `decision: ${decision.action}${decision.action === 'ask' ? ` (${decision.requiredApprovals} approver${decision.requiredApprovals > 1 ? 's' : ''})` : ''}`,
      `policy:   ${decision.policyId}`,
      `reason:   ${decision.reason}`,
    ];
    if (decision.action === 'ask') {
      const candidates = (await users.list()).map((u) => ({ username: u.username, roles: u.roles }));
      const self = policy.mayApprove({ approver: user, requester: user, call, approvalsSoFar: [], candidates, at });
      lines.push(`who can approve: ${self.eligibleApprovers.join(', ') || 'nobody under this policy'}`);
      lines.push(`${user.username} approving it themself: ${self.allowed ? 'allowed' : 'refused'} by ${self.policyId} (${self.reason})`);
    }
    io.stdout.write(`${lines.join('\n')}\n`);
    return 0;
  } finally {
    await opsgate.close();
  }
}

/** `opsgate policy`: validate a Cedar policy directory, or explain what it decides for one call. */
export const policyCommand: CliCommand = {
  name: 'policy',
  summary: 'validate a Cedar policy directory (check) or explain a decision (explain)',
  usage,
  async run(argv, io) {
    const [verb, ...rest] = argv;
    const { values, positionals } = parseCommandArgs(
      rest,
      {
        dir: { type: 'string' },
        user: { type: 'string' },
        tool: { type: 'string' },
        args: { type: 'string' },
        agent: { type: 'string' },
        target: { type: 'string' },
        environment: { type: 'string' },
      },
      false,
    );
    if (positionals.length > 0) throw new UsageError('unexpected arguments');
    if (verb === 'check') {
      if (values.user || values.tool || values.args || values.agent || values.target || values.environment)
        throw new UsageError('policy check takes only --dir');
      const dir = policyDir(values, io);
      const set = loadPolicyDirectory(dir);
      io.stdout.write(`policy OK: ${set.policies.size} policies in ${dir} (${[...set.policies.keys()].join(', ')})\n`);
      return 0;
    }
    if (verb === 'explain') return explain(values, io);
    throw new UsageError('expected "opsgate policy check" or "opsgate policy explain" (see opsgate policy --help)');
  },
};
