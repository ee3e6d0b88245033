export {
  CommandValidator,
  createCommandValidator,
  MAX_NESTING,
} from './command-validator.ts';
export { DEFAULT_LINUX_BLOCKLIST } from './linux-blocklist.ts';
export type { Redirect, SimpleCommand, TargetOs, Word } from './types.ts';
export { DEFAULT_WINDOWS_BLOCKLIST } from './windows-blocklist.ts';
