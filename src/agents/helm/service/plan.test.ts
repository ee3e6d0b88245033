import { describe, expect, it } from 'vitest';
import { type InstallationPlan, provenanceSummary } from './plan.ts';

const plan = (fields: Partial<InstallationPlan>) => ({ operation: 'install', ...fields }) as InstallationPlan;
const chart = { name: 'webapp', version: '1.0.0', appVersion: '1.25.3' };

describe('provenanceSummary', () => {
  it('says the signature was verified and by which key, or that it was not', () => {
    expect(provenanceSummary(plan({ chart: { ...chart, provenance: { signedBy: 'ops <ops@example.org>', fingerprint: 'ABCD' } } }))).toBe(
      'signature verified: signed by ops <ops@example.org>, key ABCD',
    );
    expect(provenanceSummary(plan({ operation: 'upgrade', chart }))).toBe('signature not verified (no keyring configured)');
  });

  it('says nothing for a change that installs no chart', () => {
    expect(provenanceSummary(plan({ operation: 'rollback', chart }))).toBeUndefined();
    expect(provenanceSummary(plan({ operation: 'uninstall' }))).toBeUndefined();
  });
});
