import { describe, expect, it } from 'vitest';
import type { ApprovalDecisionContext } from './decision-context.ts';
import { hasExpired } from './expire.ts';

// hasExpired reads only the call's expiry and the moment of the decision.
const decisionAt = (expiresAt: string | null, decidedAt: string) =>
  ({ call: { row: { expires_at: expiresAt } }, decidedAt }) as unknown as ApprovalDecisionContext;

describe('hasExpired', () => {
  it('an approval request is expired from the very millisecond it expires, not only after', () => {
    const expiresAt = '2026-11-26T10:00:00.000Z';
    expect(hasExpired(decisionAt(expiresAt, '2026-11-26T09:59:59.999Z'))).toBe(false);
    expect(hasExpired(decisionAt(expiresAt, expiresAt))).toBe(true);
    expect(hasExpired(decisionAt(expiresAt, '2026-11-26T10:00:00.001Z'))).toBe(true);
  });

  it('a request without an expiry never expires', () => {
    expect(hasExpired(decisionAt(null, '2099-01-01T00:00:00.000Z'))).toBe(false);
  });
});
