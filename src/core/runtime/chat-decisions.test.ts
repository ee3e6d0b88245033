import { describe, expect, it } from 'vitest';
import { decisionFromText } from './chat-decisions.ts';
import type { SessionSnapshot } from './types.ts';

const pending = { interrupt: { type: 'approval', callId: 'call-1' } as SessionSnapshot['interrupt'] };

describe('typed replies to a pending approval', () => {
  it('keeps a stop-word as the reason, so a runbook ends instead of proposing its next step (issue 31, item 2)', () => {
    expect(decisionFromText(pending, 'stop')).toEqual({ type: 'reject', callId: 'call-1', reason: 'stop' });
    expect(decisionFromText(pending, 'Enough, I will look myself')).toEqual({
      type: 'reject',
      callId: 'call-1',
      reason: 'Enough, I will look myself',
    });
  });

  it('a plain no is a rejection of this step, with its reason when one follows', () => {
    expect(decisionFromText(pending, 'no')).toEqual({ type: 'reject', callId: 'call-1', reason: 'declined in chat' });
    expect(decisionFromText(pending, 'no, wrong host')).toEqual({ type: 'reject', callId: 'call-1', reason: 'wrong host' });
    expect(decisionFromText(pending, 'yes')).toEqual({ type: 'approve', callId: 'call-1' });
    expect(decisionFromText(pending, 'stopwatch the disk')).toBeUndefined();
  });
});
