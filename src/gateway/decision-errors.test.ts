import { describe, expect, it } from 'vitest';
import { CoreErrors } from '../core/errors/index.ts';
import { explainedDecisionError } from './decision-errors.ts';

describe('explainedDecisionError', () => {
  it('says which upstream a process lacks, and how to give it, when a gateway call cannot be decided here (F5)', () => {
    const error = explainedDecisionError(CoreErrors.UNKNOWN_AGENT({ agent: 'gateway-rug', available: 'access, helm' }));
    expect(error).toMatchObject({ code: 'GATEWAY_UPSTREAM_NOT_CONFIGURED' });
    expect((error as Error).message).toMatch(/upstream "rug".*nothing ran and the call still waits.*OPSGATE_GATEWAY_CONFIG=FILE/);
  });

  it('leaves every other error alone', () => {
    const other = CoreErrors.UNKNOWN_AGENT({ agent: 'helm', available: 'access' });
    expect(explainedDecisionError(other)).toBe(other);
    const plain = new Error('x');
    expect(explainedDecisionError(plain)).toBe(plain);
  });
});
