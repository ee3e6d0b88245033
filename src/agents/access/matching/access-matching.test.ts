import { describe, expect, it } from 'vitest';
import { demoAccesses } from '../service/demo-data.ts';
import { clarifyingQuestion, closestAccesses, editDistance, matchAccess } from './access-matching.ts';

const catalog = demoAccesses;
const names = (list: ReadonlyArray<{ name: string }>) => list.map((a) => a.name);

describe('matchAccess', () => {
  it('maps "read documents" to READ_DOCUMENTS only', () => {
    expect(matchAccess('I need access to read documents', catalog)).toMatchObject({ kind: 'unique', access: { name: 'READ_DOCUMENTS' } });
  });

  it('finds the five database accesses ambiguous and never guesses one', () => {
    const match = matchAccess('I need database access', catalog);
    expect(match.kind).toBe('ambiguous');
    expect(names((match as unknown as { candidates: Array<{ name: string }> }).candidates)).toEqual([
      'DB_READ_DEV',
      'DB_READ_STAGING',
      'DB_READ_PROD',
      'DB_WRITE_DEV',
      'DB_WRITE_PROD',
    ]);
  });

  it('resolves the clarified request "Production, read only" to DB_READ_PROD', () => {
    expect(matchAccess('I need database access Production, read only', catalog)).toMatchObject({
      kind: 'unique',
      access: { name: 'DB_READ_PROD' },
    });
  });

  it('stays ambiguous when only the environment is given', () => {
    const match = matchAccess('I need database access production', catalog);
    expect(match.kind).toBe('ambiguous');
    expect(names((match as unknown as { candidates: Array<{ name: string }> }).candidates)).toEqual(['DB_READ_PROD', 'DB_WRITE_PROD']);
  });

  it('takes exact names, and suggests the closest for a misspelt one', () => {
    expect(matchAccess('I need db_write_dev please', catalog)).toMatchObject({ kind: 'unique', access: { name: 'DB_WRITE_DEV' } });
    const typo = matchAccess('I need DB_READ_PRD', catalog);
    expect(typo.kind).toBe('unknown');
    expect(names((typo as unknown as { suggestions: Array<{ name: string }> }).suggestions)[0]).toBe('DB_READ_PROD');
  });

  it('offers the closest names for an unknown access', () => {
    const match = matchAccess('I need access to the kubernetes cluster', catalog);
    expect(match.kind).toBe('unknown');
    expect((match as unknown as { suggestions: unknown[] }).suggestions).toHaveLength(3);
    const typo = closestAccesses('databse', catalog);
    expect(names(typo).every((n) => n.startsWith('DB_'))).toBe(true);
  });
});

describe('clarifyingQuestion', () => {
  it('asks the spec question, naming the options from the catalog', () => {
    const candidates = catalog.filter((a) => a.name.startsWith('DB_'));
    expect(clarifyingQuestion(candidates)).toBe(
      'I found multiple database accesses. Which environment do you need: development, staging, or production? And do you need read or write access?',
    );
    const noStaging = candidates.filter((a) => a.name !== 'DB_READ_STAGING');
    expect(clarifyingQuestion(noStaging)).toBe(
      'I found multiple database accesses. Which environment do you need: development or production? And do you need read or write access?',
    );
    expect(clarifyingQuestion(catalog.filter((a) => a.name.endsWith('_PROD') && a.name.startsWith('DB_')))).toBe(
      'I found multiple production database accesses. Do you need read or write access?',
    );
  });

  it('falls back to naming the accesses when they differ otherwise', () => {
    const question = clarifyingQuestion(catalog.filter((a) => a.name === 'VPN_ACCESS' || a.name === 'CRM_READ'));
    expect(question).toContain('VPN_ACCESS (Connect to the corporate VPN)');
    expect(question).toContain('Which one do you need?');
  });

  it('computes edit distance', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
  });
});
