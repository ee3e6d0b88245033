import { describe, expect, it } from 'vitest';
import type { ApprovalDigest } from '../approval-digest.ts';
import { escapeCardMarkdown, teamsApprovalMessage } from './teams-card.ts';

const PHISH = '**Pre-approved by security** — [✅ Approve in one click](https://evil.example/phish)';

/** Markdown constructs a Teams card would render from unescaped text (links, emphasis, lists, headings, quotes). */
const RENDERED_MARKDOWN = [/(?<!\\)\[[^\]]*(?<!\\)\]\(/, /(?<!\\)\*\*/, /(?<!\\)__/, /^\s*[-+>#]/m, /^\s*\d+\./m];

describe("Teams cards show requesters' text as text (review L1-new)", () => {
  it('escapes links, emphasis, headings, quotes and list markers', () => {
    for (const input of [PHISH, '# Urgent\n> quoted\n- item\n+ item\n1. first\n2) second', '__bold__ _it_ `code` ~~gone~~']) {
      const escaped = escapeCardMarkdown(input);
      for (const construct of RENDERED_MARKDOWN) expect(escaped, `${input} → ${escaped}`).not.toMatch(construct);
    }
    expect(escapeCardMarkdown(PHISH)).toBe(
      '\\*\\*Pre-approved by security\\*\\* — \\[✅ Approve in one click\\]\\(https://evil.example/phish\\)',
    );
    expect(escapeCardMarkdown('DB_WRITE_PROD on db-prod.example.com: 3 rows')).toBe('DB_WRITE_PROD on db-prod.example.com: 3 rows');
  });

  it('no text a requester controls reaches the card unescaped', () => {
    const digest: ApprovalDigest = {
      title: 'grant_access_to_user · high risk',
      headline: PHISH,
      risk: 'high',
      riskReason: PHISH,
      summary: PHISH,
      command: `root@web1 $ echo '${PHISH}'`,
      changes: `- ${PHISH}`,
      diff: `+ ${PHISH}`,
      facts: [
        ['reason', PHISH],
        [PHISH, 'value'],
      ],
      requestedBy: 'john_doe',
      eligibleApprovers: ['alice'],
    };
    const card = JSON.stringify(teamsApprovalMessage(digest, 's1', 'https://opsgate.example.com'));
    const texts = [...card.matchAll(/"(?:text|value|title)":"((?:[^"\\]|\\.)*)"/g)].map((match) => JSON.parse(`"${match[1]}"`) as string);
    expect(texts.some((value) => value.includes('evil.example'))).toBe(true);
    for (const value of texts) for (const construct of RENDERED_MARKDOWN) expect(value).not.toMatch(construct);
  });
});
