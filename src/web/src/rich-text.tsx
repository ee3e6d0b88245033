import type { ComponentChildren } from 'preact';

/** Only http(s) and relative links become anchors; anything else stays text. */
export function safeHref(url: string): string | undefined {
  try {
    const parsed = new URL(url, location.origin);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

const INLINE = /\*\*(.+?)\*\*|`([^`]+)`|\[([^\]]+)\]\(([^)\s]+)\)/g;

/** `**bold**`, `` `code` ``, `[text](url)`; a stray `**` is dropped. Never HTML: everything else stays text. */
function inline(text: string): ComponentChildren[] {
  const out: ComponentChildren[] = [];
  let at = 0;
  for (const match of text.matchAll(INLINE)) {
    if (match.index > at) out.push(text.slice(at, match.index).replaceAll('**', ''));
    const [, bold, code, label, url] = match;
    if (bold !== undefined) out.push(<strong>{inline(bold)}</strong>);
    else if (code !== undefined) out.push(<code>{code}</code>);
    else {
      const href = safeHref(url!);
      out.push(
        href ? (
          <a href={href} target="_blank" rel="noopener noreferrer">
            {label}
          </a>
        ) : (
          label
        ),
      );
    }
    at = match.index + match[0].length;
  }
  if (at < text.length) out.push(text.slice(at).replaceAll('**', ''));
  return out;
}

const cells = (line: string) =>
  line
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((cell) => cell.trim());
const isTableLine = (line: string) => /^\s*\|.*\|\s*$/.test(line);
const isRule = (line: string) => /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/.test(line);
const ITEM = /^\s*[-*•]\s+/;

/**
 * The small part of Markdown agents write (paragraphs, `- ` lists, `|` tables, `#` headings, bold,
 * code, links), rendered as elements, so people never read raw `**`, backticks or pipe text.
 */
export function RichText({ text, inline: onlyInline = false }: { text: string; inline?: boolean }) {
  if (onlyInline) return <>{inline(text)}</>;
  const lines = text.split('\n');
  const blocks: ComponentChildren[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === '' || line.trim() === '**') {
      i++;
    } else if (isTableLine(line) && i + 1 < lines.length && isRule(lines[i + 1]!)) {
      const head = cells(line);
      const rows: string[][] = [];
      i += 2;
      while (i < lines.length && isTableLine(lines[i]!)) rows.push(cells(lines[i++]!));
      blocks.push(
        <div class="table-scroll">
          <table class="data-table">
            <thead>
              <tr>
                {head.map((cell) => (
                  <th>{inline(cell)}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr>
                  {row.map((cell) => (
                    <td>{inline(cell)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>,
      );
    } else if (ITEM.test(line)) {
      const items: string[] = [];
      while (i < lines.length && ITEM.test(lines[i]!)) items.push(lines[i++]!.replace(ITEM, ''));
      blocks.push(
        <ul>
          {items.map((item) => (
            <li>{inline(item)}</li>
          ))}
        </ul>,
      );
    } else if (/^#{1,4}\s/.test(line)) {
      blocks.push(<p class="heading">{inline(line.replace(/^#+\s*/, ''))}</p>);
      i++;
    } else {
      // The first line always belongs to the paragraph (a `|` line without a rule below is text).
      const paragraph: string[] = [lines[i++]!];
      while (
        i < lines.length &&
        lines[i]!.trim() !== '' &&
        !ITEM.test(lines[i]!) &&
        !isTableLine(lines[i]!) &&
        !/^#{1,4}\s/.test(lines[i]!)
      )
        paragraph.push(lines[i++]!);
      blocks.push(<p>{paragraph.flatMap((part, n) => (n === 0 ? inline(part) : [<br />, ...inline(part)]))}</p>);
    }
  }
  return <div class="text rich">{blocks}</div>;
}
