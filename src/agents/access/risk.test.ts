import { describe, expect, it } from 'vitest';
import { assessGrantRisk, assessRevokeRisk } from './risk.ts';
import { demoAccesses } from './service/demo-data.ts';

/** The grant preview as the tool builds it (only the fields the scorer reads). */
function previewOf(name: string) {
  const access = demoAccesses.find((a) => a.name === name)!;
  return { kind: 'access-grant', summary: '', details: { teams: access.teams, renewal_period: access.renewal_period } };
}

const RANK = { low: 0, medium: 1, high: 2, critical: 3 } as const;

describe('access risk (docs/risk.md)', () => {
  it.each([
    ['READ_DOCUMENTS', 'low', 'grant READ_DOCUMENTS: read-only, non-production access, no expiry'],
    ['DB_READ_DEV', 'low', 'grant DB_READ_DEV: read-only, non-production access, no expiry'],
    ['CRM_READ', 'low', 'grant CRM_READ: read-only, non-production access, no expiry'],
    ['VPN_ACCESS', 'medium', 'grant VPN_ACCESS: no finance, production or write scope access, expires after 365 days'],
    ['DEPLOY_STAGING', 'medium', 'grant DEPLOY_STAGING: deploy access, no expiry'],
    ['DB_READ_PROD', 'medium', 'grant DB_READ_PROD: production access, expires after 30 days'],
    ['WRITE_DOCUMENTS', 'high', 'grant WRITE_DOCUMENTS: write access, expires after 90 days'],
    ['DB_WRITE_DEV', 'high', 'grant DB_WRITE_DEV: write access, no expiry'],
    ['DEPLOY_PROD', 'high', 'grant DEPLOY_PROD: production + deploy access, expires after 30 days'],
    ['DB_WRITE_PROD', 'high', 'grant DB_WRITE_PROD: production + write access, expires after 14 days'],
    ['BILLING_ADMIN', 'critical', 'grant BILLING_ADMIN: finance + admin access, expires after 90 days'],
  ])('%s is %s', (name, level, reason) => {
    expect(assessGrantRisk(name, previewOf(name))).toEqual({ level, reason });
  });

  it('finance, production and write rank above read', () => {
    const read = RANK[assessGrantRisk('DB_READ_DEV', previewOf('DB_READ_DEV')).level];
    for (const name of ['BILLING_ADMIN', 'DB_READ_PROD', 'DB_WRITE_DEV']) {
      expect(RANK[assessGrantRisk(name, previewOf(name)).level]).toBeGreaterThan(read);
    }
  });

  it('a finance team tag alone raises the risk, and a shorter duration is stated', () => {
    const preview = { kind: 'access-grant', summary: '', details: { teams: ['finance'], renewal_period: 30 } };
    expect(assessGrantRisk('LEDGER_READ', preview, 3)).toEqual({
      level: 'high',
      reason: 'grant LEDGER_READ: finance access, expires after 3 days',
    });
    expect(assessGrantRisk('LEDGER_READ')).toEqual({ level: 'low', reason: 'grant LEDGER_READ: read-only, non-production access' });
  });

  it('revoking is low', () => {
    expect(assessRevokeRisk('DB_WRITE_PROD')).toEqual({
      level: 'low',
      reason: 'revoke DB_WRITE_PROD: removes a permission, grants nothing',
    });
  });
});
