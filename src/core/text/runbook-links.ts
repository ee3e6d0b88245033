/** The spec's pattern for runbook links in an answer (AR-20), verbatim. */
export const RUNBOOK_LINK_PATTERN = /\[Open runbook\]\(([^)]+)\)/g;

/** Heading of the section added to a final answer. */
export const RUNBOOK_LINKS_HEADING = '📖 Runbook Links';

/** Every distinct runbook target in `text`, in order of first appearance. */
export function extractRunbookLinks(text: string): string[] {
  const links: string[] = [];
  for (const match of text.matchAll(RUNBOOK_LINK_PATTERN)) {
    const target = match[1]!.trim();
    if (target && !links.includes(target)) links.push(target);
  }
  return links;
}

/**
 * Appends a "📖 Runbook Links" section listing the runbooks the answer links to (AR-20). Returns
 * the answer unchanged when it links none or already has the section.
 */
export function appendRunbookLinks(answer: string): string {
  if (answer.includes(RUNBOOK_LINKS_HEADING)) return answer;
  const links = extractRunbookLinks(answer);
  if (links.length === 0) return answer;
  const items = links.map((target) => `- [${runbookTitle(target)}](${target})`);
  return `${answer.trimEnd()}\n\n**${RUNBOOK_LINKS_HEADING}**\n${items.join('\n')}\n`;
}

/** A readable name from a link target: `docs/runbooks/disk-full-linux.md` → `disk full linux`. */
function runbookTitle(target: string): string {
  const file = target.split(/[?#]/)[0]!.split('/').filter(Boolean).pop() ?? target;
  const name = file
    .replace(/\.(md|markdown|html?)$/i, '')
    .replace(/[-_]+/g, ' ')
    .trim();
  return name || target;
}
