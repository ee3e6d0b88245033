import { createCommandRiskAssessor } from '../../agents/troubleshoot/risk.ts';
import { createCommandValidator } from '../../agents/troubleshoot/validator/index.ts';
import { type CliCommand, UsageError } from '../command.ts';
import { parseCommandArgs } from '../parse-args.ts';

/** `opsgate check-command --os linux|windows -- "CMD"`: the troubleshoot validator's verdict as JSON. */
export const checkCommand: CliCommand = {
  name: 'check-command',
  summary: 'Check a shell command against the troubleshoot blocklists and print its risk (exit 0 allowed, 3 blocked)',
  usage: `Usage: opsgate check-command --os linux|windows [--pretty] -- "COMMAND"

Parses COMMAND the way the target shell would (bash via tree-sitter; cmd.exe and PowerShell via a
tokenizer), checks every simple command, wrapper and decoded payload against DEFAULT_LINUX_BLOCKLIST
or DEFAULT_WINDOWS_BLOCKLIST, and prints {"verdict","rule","category","segment","reason"} as JSON,
with the risk an approver would see beside it: "risk" (low, medium, high, critical) and
"riskReason" (what the command does that sets it; see docs/risk.md). Risk decides who may approve;
the verdict decides whether it may run at all.

Options:
  --os linux|windows   the target system (required)
  --pretty             indent the JSON

Exit status: 0 allowed, 3 blocked, 2 usage error.
`,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, { os: { type: 'string' }, pretty: { type: 'boolean' } }, true);
    if (values.os === undefined) throw new UsageError('--os is required: --os linux or --os windows');
    if (values.os !== 'linux' && values.os !== 'windows') throw new UsageError(`--os must be linux or windows, got "${values.os}"`);
    const command = positionals.join(' ');
    if (command.trim() === '')
      throw new UsageError('give the command to check after --, e.g. opsgate check-command --os linux -- "rm -rf ./build"');
    const validator = await createCommandValidator();
    const verdict = validator.validate(command, values.os);
    const risk = (await createCommandRiskAssessor()).assess(command, values.os);
    const report = { ...verdict, risk: risk.level, riskReason: risk.reason };
    io.stdout.write(`${JSON.stringify(report, null, values.pretty ? 2 : undefined)}\n`);
    return verdict.verdict === 'allow' ? 0 : 3;
  },
};
