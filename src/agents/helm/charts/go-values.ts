/**
 * How Helm turns template values into text. A renderer that prints values its own way hides chart
 * bugs a real cluster sees: `resources: {{ .Values.resources }}` printed as JSON is valid YAML here,
 * while Helm prints `map[limits:map[cpu:500m]]`, a string the API server rejects.
 *
 * Helm reads values files through sigs.k8s.io/yaml (YAML → JSON → Go), so every number from a
 * values file is a float64; integers written in a template (`{{ nindent 12 ... }}`) are Go ints.
 * JavaScript numbers stand for float64 here and `bigint` for Go ints.
 */
import { stringify } from 'yaml';

/** What Go's text/template prints for a missing or nil value; Helm's engine then deletes it. */
export const GO_NO_VALUE = '<no value>';

/** Go's `%v` for a float64: shortest digits, exponent form below 1e-4 or from 1e6 (Go prints 1e+06, a known Helm pitfall). */
export function formatGoFloat(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : '-Inf';
  if (value === 0) return Object.is(value, -0) ? '-0' : '0';
  const [mantissa = '', exponentText = '0'] = value.toExponential().split('e');
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 6) {
    const sign = exponent < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  // Plain notation with the same shortest digits: JavaScript prints these ranges without an exponent.
  return String(value);
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Go's `fmt.Sprint` of a value inside a map or slice (a nil there prints `<nil>`, not `<no value>`). */
function formatNested(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  return formatGoValue(value);
}

/**
 * Go's `fmt.Sprint(value)`, which text/template uses to print an action's result: maps as
 * `map[k:v ...]` with sorted keys, slices as `[a b]`, float64 as `%v`.
 */
export function formatGoValue(value: unknown): string {
  if (value === null || value === undefined) return GO_NO_VALUE;
  if (typeof value === 'string') return value;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return formatGoFloat(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value)) return `[${value.map(formatNested).join(' ')}]`;
  if (isMap(value)) {
    // Go sorts map keys when printing (since Go 1.12); strings compare bytewise.
    const keys = Object.keys(value).sort(compareBytes);
    return `map[${keys.map((key) => `${key}:${formatNested(value[key])}`).join(' ')}]`;
  }
  return String(value);
}

function compareBytes(a: string, b: string): number {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return Buffer.compare(left, right);
}

/** Sprig's `strval`: strings as they are, everything else through `%v`. */
export function goStrval(value: unknown): string {
  return typeof value === 'string' ? value : formatGoValue(value);
}

/** Go's `strconv.Quote` (what `%q` prints): printable Unicode kept, control characters escaped. */
export function goQuote(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (char === '"') out += '\\"';
    else if (char === '\\') out += '\\\\';
    else if (code === 7) out += '\\a';
    else if (code === 8) out += '\\b';
    else if (code === 12) out += '\\f';
    else if (code === 10) out += '\\n';
    else if (code === 13) out += '\\r';
    else if (code === 9) out += '\\t';
    else if (code === 11) out += '\\v';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else if (/\p{C}|\p{Zl}|\p{Zp}/u.test(char) || (/\s/u.test(char) && code !== 0x20))
      out += code > 0xffff ? `\\U${code.toString(16).padStart(8, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
    else out += char;
  }
  return `${out}"`;
}

/** Converts Go ints (`bigint`) to numbers so JSON and YAML encoders see plain data. */
function plain(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map(plain);
  if (isMap(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort(compareBytes)) out[key] = plain(value[key]);
    return out;
  }
  return value ?? null;
}

/**
 * Helm's `toJson`: Go's `json.Marshal`, which sorts map keys and escapes `<`, `>`, `&`, U+2028 and
 * U+2029 so the output is safe inside HTML.
 */
export function goToJson(value: unknown): string {
  return JSON.stringify(plain(value)).replace(/[<>&\u2028\u2029]/g, (char) => `\\u${char.codePointAt(0)!.toString(16).padStart(4, '0')}`);
}

/**
 * Helm's `toYaml`: sigs.k8s.io/yaml (JSON, then go-yaml v2) with the trailing newline removed.
 * go-yaml v2 sorts keys, does not indent a sequence under its key, quotes strings YAML 1.1 would
 * read as something else (`"yes"`, `"on"`, `"1.0"`) and folds lines at 80 columns.
 */
export function goToYaml(value: unknown): string {
  const text = stringify(plain(value), {
    version: '1.1',
    sortMapEntries: true,
    indentSeq: false,
    lineWidth: 80,
    minContentWidth: 0,
  });
  return text.replace(/\n$/, '');
}

/**
 * Sprig's `empty`, which `default` uses: nil, false, 0, "" and empty maps and slices are all empty
 * (so `default 3 .Values.replicas` replaces an explicit 0, as in real Helm).
 */
export function goEmpty(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (typeof value === 'string') return value.length === 0;
  if (typeof value === 'number') return value === 0;
  if (typeof value === 'bigint') return value === 0n;
  if (typeof value === 'boolean') return !value;
  if (Array.isArray(value)) return value.length === 0;
  if (isMap(value)) return Object.keys(value).length === 0;
  return false;
}

/** Go's type name in template errors ("expected string; got map[string]interface {}"). */
export function goTypeName(value: unknown): string {
  if (value === null || value === undefined) return 'nil';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'bigint') return 'int';
  if (typeof value === 'number') return 'float64';
  if (typeof value === 'boolean') return 'bool';
  if (Array.isArray(value)) return '[]interface {}';
  return 'map[string]interface {}';
}
