import type { ChatMessage, Interrupt } from '../../core/runtime/index.ts';
import { terminalSafe } from '../../core/text/index.ts';

const RESULT_PREVIEW = 400;

function compact(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > RESULT_PREVIEW ? `${text.slice(0, RESULT_PREVIEW)}… (${text.length} chars)` : text;
}

/** Chat messages as terminal lines: answers in full, tool calls and results compact; stored text made terminal-safe. */
export function formatMessages(messages: readonly ChatMessage[]): string {
  const lines: string[] = [];
  for (const message of messages) {
    if (message.role === 'assistant') {
      for (const call of message.toolCalls ?? []) lines.push(`  → ${call.tool}(${compact(call.args)})`);
      if (message.text) lines.push(`agent> ${message.text}`);
    } else if (message.role === 'tool' && message.toolResult) {
      lines.push(`  ${message.toolResult.isError ? '✗' : '←'} ${message.toolResult.tool}: ${compact(message.toolResult.output)}`);
    }
  }
  return lines.length ? `${terminalSafe(lines.join('\n'))}\n` : '';
}

/** The approval panel, question or continue prompt, as text safe for a terminal (a requester's text cannot rewrite it). */
export function formatInterrupt(interrupt: Interrupt): string {
  return terminalSafe(interruptText(interrupt));
}

function interruptText(interrupt: Interrupt): string {
  if (interrupt.type === 'question') {
    const context =
      interrupt.context === undefined
        ? ''
        : `\n${typeof interrupt.context === 'string' ? interrupt.context : JSON.stringify(interrupt.context, null, 2)}`;
    return `\n? ${interrupt.question}${context}\n  answer: yes | no | skip | your own words\n`;
  }
  if (interrupt.type === 'continue') return `\n⏳ ${interrupt.message}\n  type "continue" to read the output so far and go on\n`;
  const lines = [
    '',
    `┌─ approval needed: ${interrupt.tool} (risk ${interrupt.risk}) — policy ${interrupt.policyId}${interrupt.requiredApprovals > 1 ? `, ${interrupt.requiredApprovals} approvers` : ''}`,
    `│ who can approve: ${interrupt.eligibleApprovers.join(', ') || 'nobody under the current policy'}`,
    `│ arguments: ${JSON.stringify(interrupt.args)}`,
  ];
  if (interrupt.preview) {
    lines.push(`│ ${interrupt.preview.summary}`);
    if (interrupt.preview.details !== undefined) {
      const details =
        typeof interrupt.preview.details === 'string' ? interrupt.preview.details : JSON.stringify(interrupt.preview.details, null, 2);
      for (const line of details.split('\n').slice(0, 40)) lines.push(`│   ${line}`);
    }
  }
  if (interrupt.verdict) lines.push(`│ validator: ${interrupt.verdict.verdict} — ${interrupt.verdict.reason}`);
  lines.push(`│ asked by ${interrupt.requestedBy}${interrupt.expiresAt ? `, expires ${interrupt.expiresAt}` : ''}`);
  lines.push('└─ yes | no [reason] | modify {json}');
  return `${lines.join('\n')}\n`;
}
