import { describe, expect, it } from 'vitest';
import { approvalHeadline, approvalNeedsConfirmation, approvalTitle } from './approval-title.ts';

describe('approval titles say what is asked (issue 31, item 4)', () => {
  it('leads with the preview headline, then the risk', () => {
    const drop = {
      tool: 'commit_transaction',
      risk: 'critical',
      requestedBy: 'john_doe',
      preview: { headline: 'DROP TABLE order_items (8 rows)' },
    };
    expect(approvalTitle(drop)).toBe('john_doe asks: DROP TABLE order_items (8 rows) · critical');
  });

  it('falls back to the tool in words when the tool gave no headline', () => {
    expect(approvalHeadline({ tool: 'restart_service', risk: 'high', requestedBy: 'jane' })).toBe('restart service');
    expect(approvalHeadline({ tool: 'restart_service', risk: 'high', requestedBy: 'jane', preview: { headline: '  ' } })).toBe(
      'restart service',
    );
  });

  it('high and critical need a confirmation; low and medium do not', () => {
    expect(['low', 'medium', 'high', 'critical'].map(approvalNeedsConfirmation)).toEqual([false, false, true, true]);
  });
});
