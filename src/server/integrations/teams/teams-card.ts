import { type ApprovalDigest, sessionLink } from '../approval-digest.ts';

/** Adaptive Card 1.4 is what Teams incoming webhooks render. */
const CARD_VERSION = '1.4';

type CardElement = Readonly<Record<string, unknown>>;

/**
 * Text as Teams shows it, not as Markdown: a TextBlock or a fact renders Markdown (bold, italics,
 * links, lists), so a requester's reason could put a bold "Pre-approved" and a phishing link in
 * the approvers' channel. Markdown's emphasis, link, code and heading characters are
 * backslash-escaped (CommonMark escapes, which the Adaptive Card renderers follow), and so are
 * quote and list markers at the start of a line. An underscore inside a word (DB_WRITE_PROD)
 * emphasises nothing and stays as it is.
 */
export function escapeCardMarkdown(value: string): string {
  return value
    .replace(/[\\`*[\]()~#]|(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu, '\\$&')
    .replace(/^(\s*)([>+-]|\d+(?=[.)]))/gm, (_match, indent: string, marker: string) =>
      /^\d/.test(marker) ? `${indent}${marker}\\` : `${indent}\\${marker}`,
    );
}

function text(value: string, extra: Record<string, unknown> = {}): CardElement {
  return { type: 'TextBlock', text: escapeCardMarkdown(value), wrap: true, ...extra };
}

function code(value: string): CardElement {
  return { type: 'TextBlock', text: escapeCardMarkdown(value), wrap: true, fontType: 'Monospace', size: 'Small' };
}

/**
 * An incoming-webhook message with an Adaptive Card: the readable preview and a link to decide in
 * opsgate. Teams webhooks cannot send a button press back, so deciding happens in opsgate, where
 * the person signs in and the one authorizer judges.
 */
export function teamsApprovalMessage(digest: ApprovalDigest, sessionId: string, publicUrl: string): Record<string, unknown> {
  const body: CardElement[] = [
    text(digest.title, { weight: 'Bolder', size: 'Medium' }),
    text(`Why ${digest.risk}: ${digest.riskReason}`, {
      color: digest.risk === 'high' || digest.risk === 'critical' ? 'Attention' : 'Default',
    }),
    {
      type: 'FactSet',
      facts: [
        { title: 'Asked by', value: escapeCardMarkdown(digest.requestedBy) },
        { title: 'Can approve', value: escapeCardMarkdown(digest.eligibleApprovers.join(', ') || 'nobody under the current policy') },
        ...digest.facts.slice(0, 10).map(([title, value]) => ({ title: escapeCardMarkdown(title), value: escapeCardMarkdown(value) })),
      ],
    },
  ];
  if (digest.summary) body.push(text(digest.summary));
  if (digest.command) body.push(code(digest.command));
  if (digest.changes) body.push(text('Changes', { weight: 'Bolder' }), code(digest.changes));
  if (digest.diff) body.push(text('Diff', { weight: 'Bolder' }), code(digest.diff));
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: CARD_VERSION,
          body,
          ...(publicUrl
            ? { actions: [{ type: 'Action.OpenUrl', title: 'Review and decide in opsgate', url: sessionLink(publicUrl, sessionId) }] }
            : {}),
        },
      },
    ],
  };
}
