import type { Decision, QuestionAnswer, SessionSnapshot } from './types.ts';

const YES = /^(y|yes|yes please|yep|yeah|sure|ok|okay|approve|approved|go ahead|do it|please do|commit)[.!]*$/i;
const NO = /^(n|no|no thanks|nope|reject|cancel|stop|don't|do not|rollback|roll back|enough|abort|halt|quit)\b/i;
/**
 * Words that end the work, not just this step: kept in the reason, so an agent running a runbook
 * reads "stop" and stops (issue 31, item 2). Stripped, "stop" became "declined in chat" and the
 * next command was proposed at once.
 */
const STOP = /^(stop|cancel|enough|abort|halt|quit)\b/i;

/** A plain-language reply to a pending interrupt, as chat interfaces receive it. */
export function decisionFromText(session: { interrupt?: SessionSnapshot['interrupt'] }, text: string): Decision | undefined {
  const interrupt = session.interrupt;
  if (!interrupt) return undefined;
  const trimmed = text.trim();
  if (interrupt.type === 'approval') {
    if (YES.test(trimmed)) return { type: 'approve', callId: interrupt.callId };
    if (STOP.test(trimmed)) return { type: 'reject', callId: interrupt.callId, reason: trimmed };
    if (NO.test(trimmed))
      return { type: 'reject', callId: interrupt.callId, reason: trimmed.replace(NO, '').replace(/^[\s,.:;-]+/, '') || 'declined in chat' };
    return undefined;
  }
  if (interrupt.type === 'question') {
    const lower = trimmed.toLowerCase().replace(/[.!]+$/, '');
    const answer: QuestionAnswer =
      lower === 'yes' || lower === 'y' ? 'yes' : lower === 'no' || lower === 'n' ? 'no' : lower === 'skip' ? 'skip' : { custom: trimmed };
    return { type: 'answer', callId: interrupt.callId, answer };
  }
  if (/^(continue|read output( & continue)?)$/i.test(trimmed)) return { type: 'continue', callId: interrupt.callId };
  return undefined;
}
