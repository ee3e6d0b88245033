/**
 * How every surface names an approval request (web inbox, session panel, Slack, Teams, CLI): who
 * asks what, and how risky, in the words of the request itself, never the tool's name when the
 * tool said what it does ("john_doe asks: DROP TABLE order_items (8 rows) · critical").
 * Pure, so the web bundle shares it.
 */
export interface NamedApproval {
  readonly tool: string;
  readonly risk: string;
  readonly requestedBy: string;
  readonly preview?: { readonly headline?: string | undefined } | undefined;
}

/** What is asked: the preview's headline, else the tool's name in words. */
export function approvalHeadline(approval: NamedApproval): string {
  return approval.preview?.headline?.trim() || approval.tool.replace(/_/g, ' ');
}

export function approvalTitle(approval: NamedApproval): string {
  return `${approval.requestedBy} asks: ${approvalHeadline(approval)} · ${approval.risk}`;
}

/** High and critical approvals ask "are you sure?" on every surface before they are sent. */
export function approvalNeedsConfirmation(risk: string): boolean {
  return risk === 'high' || risk === 'critical';
}
