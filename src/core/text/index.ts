export {
  detectErrorKeywords,
  ERROR_KEYWORDS,
  type ErrorKeyword,
  type ErrorKeywordLine,
  type ErrorKeywordReport,
} from './error-keywords.ts';
export { cursorLine, detectPagerPrompt } from './pager-prompt.ts';
export { appendRunbookLinks, extractRunbookLinks, RUNBOOK_LINK_PATTERN, RUNBOOK_LINKS_HEADING } from './runbook-links.ts';
export { type SanitizedOutput, sanitizeOutputForModel } from './sanitize-output.ts';
export { detectShellPrompt, type ShellKind } from './shell-prompt.ts';
export { type AnsiStripper, createAnsiStripper, stripAnsi } from './strip-ansi.ts';
export { MAX_SUGGESTION_LENGTH, MAX_SUGGESTIONS, type ParsedSuggestions, parseSuggestions } from './suggestions.ts';
export { terminalSafe, terminalSafeLine } from './terminal-safe.ts';
export {
  createOutputCollector,
  MODEL_OUTPUT_LIMIT,
  type OutputCollector,
  type TruncationResult,
  truncateForModel,
  truncateForModelWithInfo,
  truncationMarker,
} from './truncate-for-model.ts';
