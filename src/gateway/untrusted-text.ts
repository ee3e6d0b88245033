/**
 * Text an upstream wrote (tool names, descriptions, titles) is untrusted: it may carry terminal
 * escapes that repaint an approver's screen, or instructions aimed at the model.
 */

// CSI and OSC escape sequences first (so their parameters go too), then every other C0/C1 control
// character except tab and newline.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const ESCAPE_SEQUENCES = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u009b[0-?]*[ -/]*[@-~]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** The text without terminal escapes and control characters (tab and newline kept). */
export function withoutControls(text: string): string {
  return text.replace(ESCAPE_SEQUENCES, '').replace(CONTROL_CHARACTERS, '');
}

/**
 * `value` with every `description` and `title` text in it (at any depth: schema properties,
 * prompt arguments) without escapes and control characters. Other strings (enums, patterns,
 * defaults) are the upstream's contract and stay exactly as they are.
 */
export function withoutControlsInTexts<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => withoutControlsInTexts(item)) as T;
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      (key === 'description' || key === 'title') && typeof item === 'string' ? withoutControls(item) : withoutControlsInTexts(item),
    ]),
  ) as T;
}

/** A tool name clients and approvers can read as is. */
export const SAFE_TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

const INJECTION_MARKERS: readonly [RegExp, string][] = [
  [/<\s*(important|system|instructions?)\s*>/i, 'a <IMPORTANT>/<system>-style tag'],
  [
    /\b(ignore|disregard|forget)\b[^.\n]{0,40}\b(previous|prior|above|earlier)\b[^.\n]{0,20}\b(instructions?|rules|prompts?)/i,
    '"ignore previous instructions"',
  ],
  [/\b(pre-?approved|already approved|no approval (is )?needed)\b/i, 'a claim of approval'],
  [
    /\b(do not|don't|never)\s+(tell|inform|show|mention)\b[^.\n]{0,20}\b(user|human|approver)/i,
    'a request to hide something from the user',
  ],
  [/\b(before|first),?\s+(answering|using this tool|responding)[^.\n]{0,40}\bcall\b/i, 'an order to call another tool first'],
  [/\.ssh\/|id_rsa|\.aws\/credentials|\.env\b/i, 'a credential file path'],
];

/** The prompt-injection markers found in upstream text, in words an approver reads. */
export function injectionMarkers(text: string): string[] {
  return INJECTION_MARKERS.filter(([pattern]) => pattern.test(text)).map(([, label]) => label);
}
