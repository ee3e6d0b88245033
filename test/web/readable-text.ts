import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { STAGING_RULE } from '../../src/agents/sandbox/index.ts';
import type { AgentInfo } from '../../src/core/runtime/index.ts';

/**
 * What a person must never read on a screen of the web UI unless they open its details: text
 * written for developers. Shared by the browser walks of requester and approver screens
 * (people-ui, approver-day).
 */

/** Exception names, stack frames, unrendered objects. */
export const EXCEPTION_TEXT =
  /\b(TypeError|ReferenceError|SyntaxError|RangeError)\b|Cannot read properties of|is not a function|\n\s*at \S+ \(|\[object Object\]/;

const UNREADABLE: ReadonlyArray<readonly [string, RegExp]> = [
  ['raw Markdown bold', /\*\*/],
  ['raw Markdown code', /`/],
  ['a table as pipe text', /^\s*\|.*\|\s*$/m],
  ['raw JSON', /\{\s*"[\w-]+"\s*:/],
  ['developer text', /testing gates|README's|toYaml|GET \/api\/|body\.\w+:|Too small: expected|\bundefined\b|\bnull\b/],
  // Issue 31: no hashes, rule ids, "declared risk", workflow states or error codes on a first read.
  ['a hash', /\bsha256:|\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{12,}\b/],
  ['"declared risk"', /declared risk/i],
  ['a workflow state', /\bWorkflow (?:COMPLETED|FAILED)\b|\b(?:COMPLETED|FAILED|PROPOSED|EXECUTING)\b/],
  [
    'an error code',
    /\b[A-Z]+(?:_[A-Z]+)*_(?:MISMATCH|EXPIRED|NOT_FOUND|FAILED|DENIED|INVALID|BUSY|ERROR|REQUIRED|FORBIDDEN|UNAVAILABLE|DECIDED)\b/,
  ],
];

/**
 * The text a person reads on the page: visible text outside code, command lines, diffs, the
 * terminal and form fields. Text inside a closed `<details>` is not visible, so it is not read.
 * Runs in the page (`page.evaluate(readableText)`).
 */
export function readableText(): string {
  const skip = 'pre, code, kbd, textarea, input, select, .terminal-panel, .xterm, .diff, script, style';
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const parts: string[] = [];
  while (walker.nextNode()) {
    const element = walker.currentNode.parentElement;
    if (!element || element.closest(skip) || !element.checkVisibility()) continue;
    parts.push(walker.currentNode.textContent ?? '');
  }
  return parts.join('\n');
}

/** Identifiers that mean something only to developers: the agents' tool names, the default policy's rule ids, the sandbox's auto-approve rule. */
export interface DeveloperIdentifiers {
  readonly toolNames: readonly string[];
  readonly ruleIds: readonly string[];
}

const DEFAULT_POLICY = join(import.meta.dirname, '..', '..', 'src', 'core', 'policy', 'cedar', 'default');

export function developerIdentifiers(agents: readonly AgentInfo[]): DeveloperIdentifiers {
  const policyIds = readdirSync(DEFAULT_POLICY)
    .filter((file) => file.endsWith('.cedar'))
    .flatMap((file) => [...readFileSync(join(DEFAULT_POLICY, file), 'utf8').matchAll(/@id\("([a-z0-9-]+)"\)/g)].map((match) => match[1]!));
  return {
    toolNames: agents.flatMap((agent) => agent.tools.map((tool) => tool.name)),
    ruleIds: [...policyIds, STAGING_RULE],
  };
}

/**
 * Each kind of unreadable text found, with the words that matched: a step is named in words
 * ("grant access to user"), and a rule id belongs in the details, not on a first read.
 */
export function unreadableIn(text: string, identifiers: DeveloperIdentifiers): string[] {
  const found: string[] = [];
  for (const [what, pattern] of UNREADABLE) {
    const match = text.match(pattern);
    if (match) found.push(`${what}: "${match[0]}"`);
  }
  const tool = identifiers.toolNames.find((name) => new RegExp(`\\b${name}\\b`).test(text));
  if (tool) found.push(`a tool's identifier: "${tool}"`);
  const rule = identifiers.ruleIds.find((id) => new RegExp(`(?<![\\w-])${id}(?![\\w-])`).test(text));
  if (rule) found.push(`a rule or policy id: "${rule}"`);
  return found;
}
