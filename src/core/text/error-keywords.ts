/** The words that mark a failed command (AR-15). */
export const ERROR_KEYWORDS = ['error', 'failed', 'denied'] as const;
export type ErrorKeyword = (typeof ERROR_KEYWORDS)[number];

export interface ErrorKeywordLine {
  /** 1-based line number in the text. */
  readonly lineNumber: number;
  /** The line, trimmed, at most 300 characters. */
  readonly line: string;
  readonly keywords: readonly ErrorKeyword[];
}

export interface ErrorKeywordReport {
  /** Keywords found anywhere, in the order of `ERROR_KEYWORDS`. Empty when none. */
  readonly keywords: readonly ErrorKeyword[];
  /** The first lines that contain a keyword (at most `maxLines`, default 20). */
  readonly lines: readonly ErrorKeywordLine[];
}

const PATTERN = /\b(error|failed|denied)\b/gi;

/**
 * Finds "error", "failed" and "denied" as whole words, in any case (`ERROR:`, `Permission denied`,
 * `Failed to start`), not inside other words (`stderr`, `errors=0`, `undenied`).
 */
export function detectErrorKeywords(text: string, maxLines = 20): ErrorKeywordReport {
  const found = new Set<ErrorKeyword>();
  const lines: ErrorKeywordLine[] = [];
  PATTERN.lastIndex = 0;
  let lastLineStart = -1;
  let countedTo = 0;
  let lineNumber = 1;
  for (let match = PATTERN.exec(text); match !== null; match = PATTERN.exec(text)) {
    const keyword = match[1]!.toLowerCase() as ErrorKeyword;
    found.add(keyword);
    const lineStart = text.lastIndexOf('\n', match.index) + 1;
    if (lineStart === lastLineStart) {
      const last = lines[lines.length - 1];
      if (last && !last.keywords.includes(keyword)) (last.keywords as ErrorKeyword[]).push(keyword);
      continue;
    }
    lastLineStart = lineStart;
    const lineEnd = text.indexOf('\n', match.index);
    if (lines.length < maxLines) {
      const line = text.slice(lineStart, lineEnd === -1 ? text.length : lineEnd).trim();
      for (let index = text.indexOf('\n', countedTo); index !== -1 && index < lineStart; index = text.indexOf('\n', index + 1))
        lineNumber++;
      countedTo = lineStart;
      lines.push({ lineNumber, line: line.length > 300 ? `${line.slice(0, 299)}…` : line, keywords: [keyword] });
    }
  }
  return { keywords: ERROR_KEYWORDS.filter((k) => found.has(k)), lines };
}
