/** What a time stamp of the render is shown as in a plan. */
export const RENDER_TIME = '<render time>';

/** How far from the render a stamp may be and still be taken for it (a day's resolution, time zones). */
const WINDOW_MS = 36 * 3600_000;

interface Stamp {
  readonly pattern: RegExp;
  readonly time: (match: RegExpExecArray) => number | undefined;
}

const utc = (y: string, mo: string, d: string, h = '0', mi = '0', s = '0'): number | undefined => {
  const [month, day] = [Number(mo), Number(d)];
  if (month < 1 || month > 12 || day < 1 || day > 31) return undefined;
  return Date.UTC(Number(y), month - 1, day, Number(h), Number(mi), Number(s));
};

/**
 * The shapes a template's `now` takes once printed: Go's default (`2026-11-24 19:28:42.1 +0000 UTC
 * m=+0.01`), RFC 3339, `date "2006-01-02"` and its slash form, compact `20061102[150405]`, and
 * Unix seconds or milliseconds (`now | unixEpoch`).
 */
const STAMPS: readonly Stamp[] = [
  {
    pattern:
      /(?<!\d)(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|\s?[+-]\d{2}:?\d{2}(?:\s[A-Z]{2,5})?)?(?:\sm=[+-]\d+\.\d+)?)?(?!\d)/g,
    time: (m) => utc(m[1]!, m[2]!, m[3]!, m[4], m[5], m[6]),
  },
  { pattern: /(?<!\d)(\d{4})\/(\d{2})\/(\d{2})(?!\d)/g, time: (m) => utc(m[1]!, m[2]!, m[3]!) },
  {
    pattern: /(?<![\d.])(\d{4})(\d{2})(\d{2})(?:(\d{2})(\d{2})(\d{2}))?(?![\d.])/g,
    time: (m) => utc(m[1]!, m[2]!, m[3]!, m[4], m[5], m[6]),
  },
  { pattern: /(?<![\d.])(\d{10}|\d{13})(?![\d.])/g, time: (m) => Number(m[1]) * (m[1]!.length === 10 ? 1000 : 1) },
];

/**
 * Replaces every time stamp within a day and a half of `renderedAt` by `<render time>`. A chart
 * that prints `now` at day or minute resolution renders alike twice in a row, so it looked stable,
 * and then came back stale at execution the next minute or day (HELM_PLAN_STALE forever). With the
 * stamp masked, the rest of the object stays bound; a fixed date (a value, a pinned version) is
 * further away and stays as it is.
 */
export function maskRenderTimes(text: string, renderedAt: number): string {
  let out = text;
  for (const { pattern, time } of STAMPS) {
    out = out.replace(pattern, (...args: unknown[]) => {
      const match = args.slice(0, -2) as unknown as RegExpExecArray;
      const at = time(match);
      if (at === undefined || Number.isNaN(at) || Math.abs(at - renderedAt) > WINDOW_MS) return String(args[0]);
      return RENDER_TIME;
    });
  }
  return out;
}
