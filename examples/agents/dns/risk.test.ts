import { describe, expect, it } from 'vitest';
import { assessRecordChange } from './risk.ts';

describe('dns record change risk', () => {
  it('is critical for NS, high for MX and medium for the rest, each with its reason', () => {
    expect(assessRecordChange('NS', 'example.com')).toEqual({ level: 'critical', reason: 'NS records decide who answers for the zone' });
    expect(assessRecordChange('MX', 'example.com')).toEqual({ level: 'high', reason: 'mail for example.com goes where MX points' });
    expect(assessRecordChange('A', 'www')).toEqual({ level: 'medium', reason: 'A www changes what clients resolve' });
  });
});
