import { UsageError } from '../command.ts';

export interface ChatOptionFlags {
  readonly db?: string | undefined;
  readonly option?: readonly string[] | undefined;
  readonly 'agent-option'?: readonly string[] | undefined;
  readonly 'agent-mode'?: boolean | undefined;
  readonly 'auto-approve'?: boolean | undefined;
}

export interface ChatOptions {
  /** What the agent's `setup` reads as `context.options`. */
  readonly agentOptions: Readonly<Record<string, string>>;
  /** What the session starts with (`state.options`), seen by tools and the policy. */
  readonly sessionOptions: Readonly<Record<string, unknown>>;
}

function keyValue(flag: string, pair: string): [string, string] {
  const eq = pair.indexOf('=');
  if (eq <= 0) throw new UsageError(`${flag} takes KEY=VALUE, got "${pair}"`);
  return [pair.slice(0, eq), pair.slice(eq + 1)];
}

/** `--agent-option` and `--db` set the agent's setup options; `--option`, `--agent-mode` and `--auto-approve` the session's. */
export function chatOptions(flags: ChatOptionFlags): ChatOptions {
  const agentOptions: Record<string, string> = {};
  for (const pair of flags['agent-option'] ?? []) {
    const [key, value] = keyValue('--agent-option', pair);
    agentOptions[key] = value;
  }
  if (flags.db) agentOptions.db = flags.db;
  const sessionOptions: Record<string, unknown> = {};
  for (const pair of flags.option ?? []) {
    const [key, raw] = keyValue('--option', pair);
    sessionOptions[key] = /^-?\d+$/.test(raw) ? Number(raw) : raw === 'true' ? true : raw === 'false' ? false : raw;
  }
  if (flags['auto-approve'] && !flags['agent-mode']) throw new UsageError('--auto-approve only works with --agent-mode (AR-03)');
  if (flags['agent-mode']) sessionOptions.agentMode = true;
  if (flags['auto-approve']) sessionOptions.autoApprove = true;
  return { agentOptions, sessionOptions };
}
