import { describe, expect, it } from 'vitest';
import { appendRunbookLinks, extractRunbookLinks, RUNBOOK_LINK_PATTERN } from './runbook-links.ts';

describe('runbook links', () => {
  it("AR-20 uses the spec's regex verbatim", () => {
    expect(RUNBOOK_LINK_PATTERN.source).toBe(String.raw`\[Open runbook\]\(([^)]+)\)`);
  });

  it('AR-20 captures every distinct runbook link and appends a 📖 Runbook Links section', () => {
    const answer =
      'Disk is full. [Open runbook](docs/runbooks/disk-full-linux.md)\nAlso see [Open runbook](docs/runbooks/high-cpu-linux.md) and [Open runbook](docs/runbooks/disk-full-linux.md).';
    expect(extractRunbookLinks(answer)).toEqual(['docs/runbooks/disk-full-linux.md', 'docs/runbooks/high-cpu-linux.md']);
    const final = appendRunbookLinks(answer);
    expect(final.startsWith(answer)).toBe(true);
    expect(final).toContain('📖 Runbook Links');
    expect(final).toContain('- [disk full linux](docs/runbooks/disk-full-linux.md)\n- [high cpu linux](docs/runbooks/high-cpu-linux.md)');
    expect(appendRunbookLinks(final)).toBe(final);
  });

  it('AR-20 leaves answers without runbook links alone', () => {
    expect(appendRunbookLinks('All good. [docs](http://x)')).toBe('All good. [docs](http://x)');
  });
});
