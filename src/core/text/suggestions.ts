/** At most this many suggestion chips are shown (AR-21). */
export const MAX_SUGGESTIONS = 4;
/** Longer items are cut to this many characters, ending in `…`. */
export const MAX_SUGGESTION_LENGTH = 60;

export interface ParsedSuggestions {
  /** The answer without the block, trimmed at the end. */
  readonly text: string;
  /** Follow-up actions for chips: distinct, non-empty, at most four. */
  readonly suggestions: readonly string[];
}

const OPEN = /^[ \t]*\[SUGGESTIONS\][ \t]*(.*)$/im;
const CLOSE = /^[ \t]*\[\/SUGGESTIONS\][ \t]*$/im;

/**
 * Parses the `[SUGGESTIONS]` block a model may end its answer with (AR-21):
 *
 * ```
 * [SUGGESTIONS]
 * - Check logs
 * - Restart nginx
 * [/SUGGESTIONS]
 * ```
 *
 * Items are lines starting with `-`, `*`, `•` or `1.`; the block ends at `[/SUGGESTIONS]`, or else
 * at the first line that is not an item after at least one item, or at the end of the text. Items on
 * the marker line itself may be separated by `|`. The block is removed from the visible text.
 */
export function parseSuggestions(answer: string): ParsedSuggestions {
  const open = OPEN.exec(answer);
  if (!open) return { text: answer, suggestions: [] };
  const bodyStart = open.index + open[0].length;
  const rest = answer.slice(bodyStart);
  const close = CLOSE.exec(rest);
  let bodyEnd: number;
  let blockEnd: number;
  const items: string[] = [];
  const inline = open[1]!.trim();
  if (inline) items.push(...inline.split('|'));
  if (close) {
    bodyEnd = bodyStart + close.index;
    blockEnd = bodyStart + close.index + close[0].length;
    items.push(
      ...answer
        .slice(bodyStart, bodyEnd)
        .split('\n')
        .filter((line) => line.trim() !== ''),
    );
  } else {
    let offset = bodyStart;
    blockEnd = bodyStart;
    for (const line of rest.split('\n')) {
      const isItem = /^\s*([-*•]|\d+[.)])\s+\S/.test(line);
      if (line.trim() !== '' && !isItem) break;
      if (isItem) items.push(line);
      offset += line.length + 1;
      if (isItem) blockEnd = Math.min(offset, answer.length);
    }
  }
  const suggestions: string[] = [];
  for (const raw of items) {
    const item = cleanItem(raw);
    if (item && !suggestions.some((existing) => existing.toLowerCase() === item.toLowerCase())) suggestions.push(item);
    if (suggestions.length === MAX_SUGGESTIONS) break;
  }
  const text = `${answer.slice(0, open.index)}${answer.slice(blockEnd)}`.replace(/\n{3,}/g, '\n\n').trimEnd();
  return { text, suggestions };
}

function cleanItem(raw: string): string {
  let item = raw
    .trim()
    .replace(/^([-*•]|\d+[.)])\s+/, '')
    .trim();
  item = item.replace(/^(["'`])(.*)\1$/, '$2').trim();
  if (item.length > MAX_SUGGESTION_LENGTH) item = `${item.slice(0, MAX_SUGGESTION_LENGTH - 1).trimEnd()}…`;
  return item;
}
