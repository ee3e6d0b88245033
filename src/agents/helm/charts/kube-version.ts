/**
 * Version constraints exactly as Helm evaluates them: Helm uses Masterminds/semver v3 (not npm
 * `semver`) for a chart's `kubeVersion`, for `--version` ranges and for index sorting. The two
 * disagree where it matters here: Masterminds accepts `>=1.20, <1.30` (comma = AND) and treats a
 * prerelease such as `v1.29.4-eks-036c24b` (what EKS/GKE report) as a prerelease, which only a
 * constraint that itself names a prerelease (`>=1.20.0-0`) admits. Ported from Masterminds/semver
 * `version.go` and `constraints.go` (the regular expressions are kept as they are there, including
 * the literal `|` inside the character classes, so that what parses there parses here).
 */
import { HelmErrors } from '../errors.ts';

/** A parsed version (Masterminds `NewVersion` with its default coercion: `1`, `v1.2` are accepted). */
export interface SemverVersion {
  readonly major: bigint;
  readonly minor: bigint;
  readonly patch: bigint;
  /** Without the leading `-`; empty when none. */
  readonly prerelease: string;
  readonly metadata: string;
  readonly original: string;
}

const MAX_UINT64 = (1n << 64n) - 1n;
const LOOSE_VERSION = /^v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?(-([0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*))?(\+([0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*))?$/;

function segment(text: string): bigint | undefined {
  const value = BigInt(text);
  return value > MAX_UINT64 ? undefined : value;
}

function validPrerelease(prerelease: string): boolean {
  return prerelease.split('.').every((part) => part !== '' && (!/^[0-9]+$/.test(part) || part.length === 1 || part[0] !== '0'));
}

/** Parses a version the way Masterminds `NewVersion` does; `undefined` where it returns an error. */
export function parseVersion(text: string): SemverVersion | undefined {
  const match = LOOSE_VERSION.exec(text);
  if (!match) return undefined;
  const major = segment(match[1]!);
  const minor = match[2] ? segment(match[2].slice(1)) : 0n;
  const patch = match[3] ? segment(match[3].slice(1)) : 0n;
  if (major === undefined || minor === undefined || patch === undefined) return undefined;
  const prerelease = match[5] ?? '';
  const metadata = match[8] ?? '';
  if (prerelease && !validPrerelease(prerelease)) return undefined;
  return { major, minor, patch, prerelease, metadata, original: text };
}

function compareBig(a: bigint, b: bigint): number {
  return a === b ? 0 : a > b ? 1 : -1;
}

function comparePrePart(s: string, o: string): number {
  if (s === o) return 0;
  if (s === '') return -1;
  if (o === '') return 1;
  const sNumeric = /^[0-9]+$/.test(s) && BigInt(s) <= MAX_UINT64;
  const oNumeric = /^[0-9]+$/.test(o) && BigInt(o) <= MAX_UINT64;
  // Masterminds compares two non-numeric identifiers bytewise, and a number sorts before a word.
  if (!sNumeric && !oNumeric) return s > o ? 1 : -1;
  if (!oNumeric) return -1;
  if (!sNumeric) return 1;
  return BigInt(s) > BigInt(o) ? 1 : -1;
}

function comparePrerelease(a: string, b: string): number {
  const sa = a.split('.');
  const sb = b.split('.');
  for (let i = 0; i < Math.max(sa.length, sb.length); i++) {
    const d = comparePrePart(sa[i] ?? '', sb[i] ?? '');
    if (d !== 0) return d;
  }
  return 0;
}

/** -1, 0 or 1; build metadata is ignored, a release sorts after its prereleases. */
export function compareVersions(a: SemverVersion, b: SemverVersion): number {
  const d = compareBig(a.major, b.major) || compareBig(a.minor, b.minor) || compareBig(a.patch, b.patch);
  if (d !== 0) return d;
  if (a.prerelease === '' && b.prerelease === '') return 0;
  if (a.prerelease === '') return 1;
  if (b.prerelease === '') return -1;
  return comparePrerelease(a.prerelease, b.prerelease);
}

type Operator = '' | '=' | '!=' | '>' | '<' | '>=' | '=>' | '<=' | '=<' | '~' | '~>' | '^';

interface Constraint {
  readonly operator: Operator;
  readonly version: SemverVersion;
  /** Some part was x/X/* or missing (`1.x`, `2`): the comparison is by range, not by exact version. */
  readonly dirty: boolean;
  readonly minorDirty: boolean;
  readonly patchDirty: boolean;
}

/** A parsed constraint string: OR groups of AND-ed constraints. */
export interface VersionConstraints {
  readonly text: string;
  readonly groups: ReadonlyArray<{ readonly constraints: readonly Constraint[]; readonly hasPrerelease: boolean }>;
}

const CV = String.raw`v?([0-9|x|X|\*]+)(\.[0-9|x|X|\*]+)?(\.[0-9|x|X|\*]+)?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?`;
const OPS = String.raw`=||!=|>|<|>=|=>|<=|=<|~|~>|\^`;
const CONSTRAINT = new RegExp(String.raw`^\s*(${OPS})\s*(${CV})\s*$`);
const RANGE = new RegExp(String.raw`\s*(${CV})\s+-\s+(${CV})\s*`, 'g');
const FIND = new RegExp(String.raw`(${OPS})\s*(${CV})`, 'g');
const VALID = new RegExp(String.raw`^(\s*(${OPS})\s*(${CV})\s*)((?:\s+|,\s*)(${OPS})\s*(${CV})\s*)*$`);

const isX = (part: string | undefined): boolean => part === 'x' || part === 'X' || part === '*';

/** `1 - 2` → `>= 1, <= 2 ` (Masterminds `rewriteRange`, replacing each match once, in order). */
function rewriteRange(text: string): string {
  let out = text;
  for (const match of text.matchAll(RANGE)) out = out.replace(match[0], `>= ${match[1]}, <= ${match[11]} `);
  return out;
}

function parseOne(text: string): Constraint | undefined {
  if (text.length === 0) {
    return { operator: '', version: parseVersion('0.0.0')!, dirty: true, minorDirty: false, patchDirty: false };
  }
  const m = CONSTRAINT.exec(text);
  if (!m) return undefined;
  const [, operator = '', original = '', major = '', minorPart = '', patchPart = '', pre = ''] = m;
  let text2 = original;
  let dirty = false;
  let minorDirty = false;
  let patchDirty = false;
  if (isX(major) || major === '') {
    text2 = `0.0.0${pre}`;
    dirty = true;
  } else if (isX(minorPart.replace(/^\./, '')) || minorPart === '') {
    minorDirty = true;
    dirty = true;
    text2 = `${major}.0.0${pre}`;
  } else if (isX(patchPart.replace(/^\./, '')) || patchPart === '') {
    dirty = true;
    patchDirty = true;
    text2 = `${major}${minorPart}.0${pre}`;
  }
  const version = parseVersion(text2);
  if (!version) return undefined;
  return { operator: operator as Operator, version, dirty, minorDirty, patchDirty };
}

/** Parses a constraint like Masterminds `NewConstraint`; `undefined` where it returns an error. */
export function parseConstraints(text: string): VersionConstraints | undefined {
  const groups: Array<{ constraints: Constraint[]; hasPrerelease: boolean }> = [];
  for (const group of rewriteRange(text).split('||')) {
    if (!VALID.test(group)) return undefined;
    const found = [...group.matchAll(FIND)].map((m) => m[0]);
    const parts = found.length > 0 ? found : [group];
    const constraints: Constraint[] = [];
    for (const part of parts) {
      const parsed = parseOne(part);
      if (!parsed) return undefined;
      constraints.push(parsed);
    }
    groups.push({ constraints, hasPrerelease: constraints.some((c) => c.version.prerelease !== '') });
  }
  return { text, groups };
}

const lessThan = (a: SemverVersion, b: SemverVersion) => compareVersions(a, b) < 0;

function tilde(v: SemverVersion, c: Constraint): boolean {
  if (lessThan(v, c.version)) return false;
  if (c.version.major === 0n && c.version.minor === 0n && c.version.patch === 0n && !c.minorDirty && !c.patchDirty) return true;
  if (v.major !== c.version.major) return false;
  return !(v.minor !== c.version.minor && !c.minorDirty);
}

function checkOne(v: SemverVersion, c: Constraint, includePrerelease: boolean): boolean {
  // Masterminds decides prereleases per AND group: a prerelease version only passes a group that
  // names a prerelease somewhere.
  if (v.prerelease !== '' && !includePrerelease) return false;
  const con = c.version;
  switch (c.operator) {
    case '':
    case '=':
      return c.dirty ? tilde(v, c) : compareVersions(v, con) === 0;
    case '!=':
      if (c.dirty) {
        if (con.major !== v.major) return true;
        if (con.minor !== v.minor && !c.minorDirty) return true;
        if (c.minorDirty) return false;
        if (con.patch !== v.patch && !c.patchDirty) return true;
        if (c.patchDirty) {
          if (v.prerelease !== '' || con.prerelease !== '') return comparePrerelease(v.prerelease, con.prerelease) !== 0;
          return false;
        }
      }
      return compareVersions(v, con) !== 0;
    case '>':
      if (!c.dirty) return compareVersions(v, con) === 1;
      if (v.major > con.major) return true;
      if (v.major < con.major) return false;
      if (c.minorDirty) return false;
      if (c.patchDirty) return v.minor > con.minor;
      return compareVersions(v, con) === 1;
    case '<':
      return compareVersions(v, con) < 0;
    case '>=':
    case '=>':
      return compareVersions(v, con) >= 0;
    case '<=':
    case '=<':
      if (!c.dirty) return compareVersions(v, con) <= 0;
      if (v.major > con.major) return false;
      return !(v.major === con.major && v.minor > con.minor && !c.minorDirty);
    case '~':
    case '~>':
      return tilde(v, c);
    case '^':
      if (lessThan(v, con)) return false;
      if (con.major > 0n || c.minorDirty) return v.major === con.major;
      if (v.major > 0n) return false;
      if (con.minor > 0n || c.patchDirty) return v.minor === con.minor;
      if (v.minor > 0n) return false;
      return con.patch === v.patch;
  }
}

/** Masterminds `Constraints.Check`: true when one OR group has every constraint satisfied. */
export function satisfiesConstraints(version: SemverVersion, constraints: VersionConstraints): boolean {
  return constraints.groups.some((group) => group.constraints.every((c) => checkOne(version, c, group.hasPrerelease)));
}

/**
 * Helm's `chartutil.IsCompatibleRange`: false when the version or the constraint does not parse,
 * otherwise whether the version satisfies the constraint.
 */
export function isCompatibleRange(constraint: string, version: string): boolean {
  const v = parseVersion(version);
  const c = parseConstraints(constraint);
  return v !== undefined && c !== undefined && satisfiesConstraints(v, c);
}

/**
 * The `kubeVersion` check Helm runs before rendering, with its wording ("chart requires
 * kubeVersion: X which is incompatible with Kubernetes Y"), and why when the constraint itself is
 * not valid — Helm reports that only as incompatible, which hides the real fix.
 */
export function checkKubeVersion(constraint: string, clusterVersion: string): { readonly ok: boolean; readonly detail: string } {
  if (isCompatibleRange(constraint, clusterVersion))
    return { ok: true, detail: `chart requires kubeVersion: ${constraint}; cluster runs Kubernetes ${clusterVersion}` };
  const reason =
    parseConstraints(constraint) === undefined
      ? ` (the constraint is not a valid semver constraint)`
      : parseVersion(clusterVersion) === undefined
        ? ` (the cluster version is not a semantic version)`
        : parseVersion(clusterVersion)!.prerelease !== ''
          ? ` (${clusterVersion} is a prerelease, which only a constraint with a prerelease such as ">=1.20.0-0" admits)`
          : '';
  return {
    ok: false,
    detail: `chart requires kubeVersion: ${constraint} which is incompatible with Kubernetes ${clusterVersion}${reason}`,
  };
}

/** Parses a constraint or throws the typed error a caller can show (`--version` ranges). */
export function requireConstraints(text: string, chart: string): VersionConstraints {
  const parsed = parseConstraints(text);
  if (!parsed) throw HelmErrors.HELM_VERSION_CONSTRAINT_INVALID({ chart, constraint: text });
  return parsed;
}
