import { type ApprovalDigest, sessionLink } from '../approval-digest.ts';

/** Adaptive Card 1.4 is what Teams incoming webhooks render. */
const CARD_VERSION = '1.4';

type CardElement = Readonly<Record<string, unknown>>;

function text(value: string, extra: Record<string, unknown> = {}): CardElement {
  return { type: 'TextBlock', text: value, wrap: true, ...extra };
}

function code(value: string): CardElement {
  return { type: 'TextBlock', text: value, wrap: true, fontType: 'Monospace', size: 'Small' };
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
        { title: 'Asked by', value: digest.requestedBy },
        { title: 'Can approve', value: digest.eligibleApprovers.join(', ') || 'nobody under the current policy' },
        ...digest.facts.slice(0, 10).map(([title, value]) => ({ title, value })),
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
