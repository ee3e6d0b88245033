import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import {
  checkKubeVersion,
  compareVersions,
  isCompatibleRange,
  parseConstraints,
  parseVersion,
} from '../../src/agents/helm/charts/kube-version.ts';

const FIXTURES = new URL('./fixtures/', import.meta.url).pathname;

/** The `{"constraint", "version", bool}` rows of one Go test function's table. */
function goTable(file: string, func: string): Array<[string, string, boolean]> {
  const source = readFileSync(`${FIXTURES}${file}`, 'utf8');
  const start = source.indexOf(`func ${func}(`);
  if (start < 0) throw new Error(`${func} not in ${file}`);
  const end = source.indexOf('\n}\n', start);
  const body = source.slice(start, end);
  return [...body.matchAll(/\{"([^"]*)",\s*"([^"]*)",\s*(true|false)\}/g)].map((m) => [m[1]!, m[2]!, m[3] === 'true']);
}

describe('kubeVersion and version ranges: Masterminds/semver v3 as Helm uses it', () => {
  it("passes every case of Helm's TestIsCompatibleRange (pkg/chartutil/compatible_test.go, v3.21.4)", () => {
    const rows = goTable('helm-testdata/compatible_test.go', 'TestIsCompatibleRange');
    expect(rows).toHaveLength(8);
    for (const [constraint, version, expected] of rows)
      expect(isCompatibleRange(constraint, version), `${constraint} vs ${version}`).toBe(expected);
  });

  it('passes every row of Masterminds TestConstraintCheck and TestConstraintsCheck', () => {
    const single = goTable('masterminds-semver/constraints_test.go', 'TestConstraintCheck');
    const full = goTable('masterminds-semver/constraints_test.go', 'TestConstraintsCheck');
    expect(single.length).toBeGreaterThan(100);
    expect(full.length).toBeGreaterThan(100);
    // TestConstraintCheck calls parseConstraint directly, where "" means "any"; through
    // NewConstraint (what Helm calls) "" is an improper constraint, so those rows check that.
    const empty = single.filter(([c]) => c === '');
    expect(empty.length).toBeGreaterThan(0);
    expect(parseConstraints('')).toBeUndefined();
    const failures = [...single.filter(([c]) => c !== ''), ...full].filter(([c, v, expected]) => isCompatibleRange(c, v) !== expected);
    expect(failures).toEqual([]);
  });

  it('parses constraints like Masterminds TestNewConstraint: OR groups, AND counts and the refused inputs', () => {
    const source = readFileSync(`${FIXTURES}masterminds-semver/constraints_test.go`, 'utf8');
    const body = source.slice(source.indexOf('func TestNewConstraint('), source.indexOf('func TestConstraintsCheck('));
    const rows = [...body.matchAll(/\{"([^"]*)",\s*(\d+),\s*(\d+),\s*(true|false)\}/g)];
    expect(rows.length).toBeGreaterThan(15);
    for (const [, input, ors, count, error] of rows) {
      const parsed = parseConstraints(input!);
      if (error === 'true') expect(parsed, input).toBeUndefined();
      else {
        expect(parsed?.groups.length, input).toBe(Number(ors));
        expect(parsed?.groups[0]?.constraints.length, input).toBe(Number(count));
      }
    }
  });

  it('orders prereleases the Masterminds way (numbers before words, shorter first)', () => {
    const sorted = [
      '1.0.0',
      '1.0.0-beta.11',
      '1.0.0-alpha.1',
      '1.0.0-alpha',
      '1.0.0-beta.2',
      '1.0.0-rc.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
    ]
      .map((v) => parseVersion(v)!)
      .sort(compareVersions)
      .map((v) => v.original);
    expect(sorted).toEqual([
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
    ]);
    expect(parseVersion('v1.2')?.patch).toBe(0n);
    expect(parseVersion('1.2.3.4')).toBeUndefined();
    expect(parseVersion('1.2.3-beta.01')).toBeUndefined();
  });

  it('the two cases of issue 12 point 8, where npm semver and Helm disagree', () => {
    // Comma-separated AND: npm semver refuses the range; Helm accepts it.
    expect(semver.validRange('>=1.20.0, <1.30.0')).toBeNull();
    expect(isCompatibleRange('>=1.20.0, <1.30.0', 'v1.29.4')).toBe(true);
    expect(isCompatibleRange('>=1.20.0, <1.29.0', 'v1.29.4')).toBe(false);
    // A managed cluster's version is a prerelease: only a constraint with a prerelease admits it.
    const eks = 'v1.29.4-eks-036c24b';
    expect(semver.satisfies(semver.coerce(eks)!.version, '>=1.23.0', { includePrerelease: true })).toBe(true);
    expect(isCompatibleRange('>=1.23.0', eks)).toBe(false);
    expect(isCompatibleRange('>=1.23.0-0', eks)).toBe(true);
    expect(isCompatibleRange('>=1.16.0-0 <1.22.0-0', eks)).toBe(false);
    const refused = checkKubeVersion('>=1.23.0', eks);
    expect(refused.ok).toBe(false);
    expect(refused.detail).toContain('chart requires kubeVersion: >=1.23.0 which is incompatible with Kubernetes v1.29.4-eks-036c24b');
    expect(refused.detail).toContain('>=1.20.0-0');
    expect(checkKubeVersion('>= 1.2.3 ||| 2', 'v1.29.4').detail).toContain('not a valid semver constraint');
  });
});
