export {
  CommandValidator,
  type CommandValidatorOptions,
  createCommandValidator,
  MAX_COMMAND_LENGTH,
  MAX_NESTING,
  STRUCTURAL_RULES,
  type ValidateOptions,
  type ValidatorTier,
} from './command-validator.ts';
export { DEFAULT_LINUX_BLOCKLIST } from './linux-blocklist.ts';
export { STRICT_LINUX_BLOCKLIST, STRICT_WINDOWS_BLOCKLIST } from './strict-blocklist.ts';
export type { CommandInput, CommandRule, Redirect, RuleCategory, SimpleCommand, TargetOs, Verdict, Word } from './types.ts';
export { DEFAULT_WINDOWS_BLOCKLIST } from './windows-blocklist.ts';
