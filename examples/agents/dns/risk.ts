import type { RiskAssessment } from '../../../src/core/tools/index.ts';

/** An MX or NS change can take mail or the whole zone away; a TXT change rarely can. */
export function assessRecordChange(type: string, name: string): RiskAssessment {
  if (type === 'NS' || type === 'SOA') return { level: 'critical', reason: `${type} records decide who answers for the zone` };
  if (type === 'MX') return { level: 'high', reason: `mail for ${name} goes where MX points` };
  return { level: 'medium', reason: `${type} ${name} changes what clients resolve` };
}
