import { describe, expect, it } from 'vitest';
import { argumentChanges, flatArguments, withArgument } from './argument-changes.ts';

describe('an approver edit in words (issue 31, item 7)', () => {
  const asked = { release: 'nginx', namespace: 'web', values: { replicaCount: 6, image: { tag: '1.25' } }, planHash: 'a'.repeat(64) };

  it('says what changed, without the plan hash: "replicaCount 6 → 4"', () => {
    const edited = { ...asked, values: { ...asked.values, replicaCount: 4 }, planHash: 'b'.repeat(64) };
    expect(argumentChanges(asked, edited)).toEqual(['replicaCount 6 → 4']);
    expect([...flatArguments(asked).keys()]).toEqual(['release', 'namespace', 'values.replicaCount', 'values.image.tag']);
  });

  it('a values form keeps numbers numbers and booleans booleans', () => {
    const edited = withArgument(withArgument(asked, 'values.replicaCount', ' 4 '), 'values.image.tag', '1.26');
    expect(edited.values).toEqual({ replicaCount: 4, image: { tag: '1.26' } });
    expect(withArgument({ dryRun: false }, 'dryRun', 'true')).toEqual({ dryRun: true });
    expect(withArgument({ replicas: 3 }, 'replicas', 'three')).toEqual({ replicas: 'three' });
    expect(asked.values.replicaCount).toBe(6);
  });
});
