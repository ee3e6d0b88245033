/** Default size of tool output handed to a model (AR-14), in characters. */
export const MODEL_OUTPUT_LIMIT = 5000;

/** Share of the kept characters taken from the start; the rest comes from the end. */
const HEAD_SHARE = 0.6;

export interface TruncationResult {
  /** The text to hand on: unchanged, or head + marker + tail, never longer than the limit. */
  readonly text: string;
  readonly truncated: boolean;
  /** Characters of the input that were cut out. 0 when not truncated. */
  readonly removedCharacters: number;
  /** Length of the input, in characters. */
  readonly originalCharacters: number;
}

const numberFormat = new Intl.NumberFormat('en-US');

/** The marker put where text was cut, e.g. `…[truncated 12,345 of 17,345 characters]…`. */
export function truncationMarker(removed: number, total: number): string {
  return `\n…[truncated ${numberFormat.format(removed)} of ${numberFormat.format(total)} characters]…\n`;
}

/**
 * Shortens text to at most `limit` characters (default 5,000, AR-14). It keeps the head and the tail:
 * command output states what it is at the start (headers, the first error) and how it ended at the
 * end (the summary, the exit message, the prompt), while the middle is usually repetition. Cuts
 * prefer line breaks near the cut points and never split a surrogate pair.
 */
export function truncateForModelWithInfo(text: string, limit = MODEL_OUTPUT_LIMIT): TruncationResult {
  return truncateParts(text, text, text.length, limit);
}

/**
 * The cut of `truncateForModelWithInfo` from the two ends of a text: `head` is its first characters
 * and `tail` its last ones (each at least `limit` long, or the whole text), `total` its length.
 */
function truncateParts(head: string, tail: string, total: number, limit: number): TruncationResult {
  if (total <= limit)
    return {
      text: head.length === total ? head : head + tail.slice(head.length - total),
      truncated: false,
      removedCharacters: 0,
      originalCharacters: total,
    };
  // The marker's length depends on the numbers in it; size it for the worst case (removing everything).
  const markerBudget = truncationMarker(total, total).length;
  const keep = Math.max(0, limit - markerBudget);
  let headEnd = Math.floor(keep * HEAD_SHARE);
  const tailOffset = total - tail.length;
  let tailStart = total - (keep - headEnd);
  headEnd = snapBack(head, headEnd, Math.floor(headEnd * 0.8));
  tailStart = tailOffset + snapForward(tail, tailStart - tailOffset, tailStart - tailOffset + Math.floor((total - tailStart) * 0.2));
  const removed = tailStart - headEnd;
  return {
    text: head.slice(0, headEnd) + truncationMarker(removed, total) + tail.slice(tailStart - tailOffset),
    truncated: true,
    removedCharacters: removed,
    originalCharacters: total,
  };
}

/** Collects streamed output in bounded memory and truncates it like `truncateForModelWithInfo` at the end. */
export interface OutputCollector {
  push(text: string): void;
  /** Characters pushed so far. */
  readonly length: number;
  finish(): TruncationResult;
}

/**
 * Keeps only the first and last `limit` characters of a stream (so 100 MB of output costs 2 × 5,000
 * characters), and gives exactly the result `truncateForModelWithInfo` would give on the whole text.
 */
export function createOutputCollector(limit = MODEL_OUTPUT_LIMIT): OutputCollector {
  let head = '';
  // The last pushed texts, just enough to hold `limit` characters; sliced only in `finish`, so a
  // push allocates nothing (slicing every chunk kept 64 KiB parents alive and cost 20 % in GC).
  const tailParts: string[] = [];
  let tailLength = 0;
  let total = 0;
  return {
    push(text: string): void {
      if (text.length === 0) return;
      total += text.length;
      if (head.length < limit) head += text.slice(0, limit - head.length);
      tailParts.push(text);
      tailLength += text.length;
      while (tailParts.length > 1 && tailLength - tailParts[0]!.length >= limit) tailLength -= tailParts.shift()!.length;
    },
    get length(): number {
      return total;
    },
    finish(): TruncationResult {
      return truncateParts(head, tailParts.join('').slice(-limit), total, limit);
    },
  };
}

/** `truncateForModelWithInfo(text, limit).text`. */
export function truncateForModel(text: string, limit = MODEL_OUTPUT_LIMIT): string {
  return truncateForModelWithInfo(text, limit).text;
}

/** Moves a head cut back to just after a newline at or after `floor`, else off a surrogate pair. */
function snapBack(text: string, end: number, floor: number): number {
  const newline = text.lastIndexOf('\n', end - 1);
  if (newline >= floor && newline >= 0) return newline + 1;
  return isLowSurrogate(text.charCodeAt(end)) ? end - 1 : end;
}

/** Moves a tail cut forward to just after a newline at or before `ceiling`, else off a surrogate pair. */
function snapForward(text: string, start: number, ceiling: number): number {
  const newline = text.indexOf('\n', start);
  if (newline >= 0 && newline < ceiling) return newline + 1;
  return isLowSurrogate(text.charCodeAt(start)) ? start + 1 : start;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
