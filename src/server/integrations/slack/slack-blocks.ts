import type { ConfirmationDialog, KnownBlock } from '@slack/types';
import { approvalNeedsConfirmation } from '../../../core/runtime/index.ts';
import { type ApprovalDigest, sessionLink } from '../approval-digest.ts';

/** `action_id`s of the buttons; the interactivity endpoint knows only these. */
export const APPROVE_ACTION = 'opsgate_approve';
export const REJECT_ACTION = 'opsgate_reject';

/** What a button carries back: which call of which session (the arguments stay in opsgate). */
export interface ButtonValue {
  readonly sessionId: string;
  readonly callId: string;
}

/** Slack's mrkdwn needs `&`, `<` and `>` escaped (its "Formatting text" guide). */
function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A section's text is at most 3,000 characters. */
function section(text: string): KnownBlock {
  return { type: 'section', text: { type: 'mrkdwn', text: text.length > 3000 ? `${text.slice(0, 2990)}…` : text } };
}

function codeBlock(text: string): string {
  return `\`\`\`${escapeMrkdwn(text).replace(/```/g, "'''")}\`\`\``;
}

/** The plain-text fallback Slack shows in notifications. */
export function approvalFallback(digest: ApprovalDigest): string {
  return digest.title;
}

/** The readable part of the request: the same facts as the web panel, in Block Kit. */
function previewBlocks(digest: ApprovalDigest, publicUrl: string, sessionId: string): KnownBlock[] {
  const blocks: KnownBlock[] = [
    { type: 'header', text: { type: 'plain_text', text: digest.title.length > 150 ? `${digest.title.slice(0, 149)}…` : digest.title } },
    section(
      `*Why ${escapeMrkdwn(digest.risk)}*: ${escapeMrkdwn(digest.riskReason)}\nAsked by *${escapeMrkdwn(digest.requestedBy)}* · ` +
        `can approve: ${escapeMrkdwn(digest.eligibleApprovers.join(', ') || 'nobody under the current policy')}`,
    ),
  ];
  if (digest.summary) blocks.push(section(escapeMrkdwn(digest.summary)));
  if (digest.command) blocks.push(section(codeBlock(digest.command)));
  if (digest.changes) blocks.push(section(`*Changes*\n${codeBlock(digest.changes)}`));
  if (digest.diff) blocks.push(section(`*Diff*\n${codeBlock(digest.diff)}`));
  if (digest.facts.length > 0)
    blocks.push({
      type: 'section',
      fields: digest.facts
        .slice(0, 10)
        .map(([label, value]) => ({ type: 'mrkdwn', text: `*${escapeMrkdwn(label)}*\n${escapeMrkdwn(value)}` })),
    });
  if (publicUrl)
    blocks.push({
      type: 'context',
      elements: [{ type: 'mrkdwn', text: `<${sessionLink(publicUrl, sessionId)}|Open the session in opsgate>` }],
    });
  return blocks;
}

const plain = (text: string) => ({ type: 'plain_text' as const, text });

/**
 * Slack's own "are you sure?" on Approve for high and critical requests, as every opsgate surface
 * asks (issue 31, item 1): one stray tap must not drop a production table.
 */
function approveConfirmation(digest: ApprovalDigest): ConfirmationDialog | undefined {
  if (!approvalNeedsConfirmation(digest.risk)) return undefined;
  const text = `${digest.headline}. ${digest.riskReason}`;
  return {
    title: plain(`Approve a ${digest.risk} request?`),
    text: plain(text.length > 300 ? `${text.slice(0, 299)}…` : text),
    confirm: plain('Yes, approve'),
    deny: plain('Cancel'),
    style: 'danger',
  };
}

/** The request with Approve / Reject buttons. */
export function approvalRequestBlocks(digest: ApprovalDigest, sessionId: string, callId: string, publicUrl: string): KnownBlock[] {
  const value = JSON.stringify({ sessionId, callId } satisfies ButtonValue);
  const confirm = approveConfirmation(digest);
  return [
    ...previewBlocks(digest, publicUrl, sessionId),
    {
      type: 'actions',
      block_id: 'opsgate_decision',
      elements: [
        {
          type: 'button',
          action_id: APPROVE_ACTION,
          style: 'primary',
          text: plain('Approve'),
          value,
          ...(confirm ? { confirm } : {}),
        },
        {
          type: 'button',
          action_id: REJECT_ACTION,
          style: 'danger',
          text: { type: 'plain_text', text: 'Reject' },
          value,
          confirm: {
            title: { type: 'plain_text', text: 'Reject this request?' },
            text: { type: 'plain_text', text: 'The call will not run; the requester and the agent are told who rejected it.' },
            confirm: { type: 'plain_text', text: 'Reject' },
            deny: { type: 'plain_text', text: 'Cancel' },
          },
        },
      ],
    },
  ];
}

/** The same message once decided: the buttons give way to who decided and how. */
export function decidedBlocks(digest: ApprovalDigest, sessionId: string, publicUrl: string, outcome: string): KnownBlock[] {
  return [...previewBlocks(digest, publicUrl, sessionId), { type: 'context', elements: [{ type: 'mrkdwn', text: escapeMrkdwn(outcome) }] }];
}
