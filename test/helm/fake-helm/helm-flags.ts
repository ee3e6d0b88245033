/**
 * The flags each helm command accepts, per Helm version, as read from Helm's source by
 * `extract-helm-flags.ts` (fixtures/helm-flags.json: v3.12.3, v3.13.0, v3.21.4 and v4 main). The
 * fake refuses any other flag with Helm's (pflag's) own error, so a flag opsgate passes to a
 * command or a version that lacks it fails here as it would on a real cluster.
 */
import { readFileSync } from 'node:fs';

interface Table {
  readonly boolean: readonly string[];
  readonly value: readonly string[];
  readonly optional: readonly string[];
}

const TABLES = (
  JSON.parse(readFileSync(new URL('../fixtures/helm-flags.json', import.meta.url), 'utf8')) as {
    versions: Record<string, Record<string, Table>>;
  }
).versions;

/** The table of the newest read version not newer than `version` ("v3.14.2+g…" reads as v3.13.0). */
function tablesFor(version: string): Record<string, Table> {
  if (version.startsWith('v4')) return TABLES['v4-main']!;
  const [major = 0, minor = 0, patch = 0] = (/^v?(\d+)\.(\d+)\.(\d+)/.exec(version) ?? []).slice(1).map(Number);
  const read = Object.keys(TABLES)
    .filter((name) => name.startsWith('v3.'))
    .map((name) => ({ name, parts: name.slice(1).split('.').map(Number) }))
    .filter(({ parts }) => major > 3 || parts[1]! < minor || (parts[1] === minor && parts[2]! <= patch))
    .sort((a, b) => a.parts[1]! - b.parts[1]! || a.parts[2]! - b.parts[2]!);
  return TABLES[read.at(-1)?.name ?? 'v3.12.3']!;
}

/** How `flag` parses for `command` ("install", "get metadata", …): boolean (may take `=value`), value, or unknown. */
export function flagKind(version: string, command: string, flag: string): 'boolean' | 'value' | undefined {
  const tables = tablesFor(version);
  const tablesOf = [tables.global, tables[command]].filter((t): t is Table => t !== undefined);
  if (tablesOf.some((t) => t.boolean.includes(flag) || t.optional.includes(flag))) return 'boolean';
  if (tablesOf.some((t) => t.value.includes(flag))) return 'value';
  return undefined;
}

const BOOL_TEXT = /^(1|0|t|f|T|F|true|false|TRUE|FALSE|True|False)$/;

/** pflag's check of a boolean flag given `--flag=value`: only Go's ParseBool spellings. */
export function checkHelmFlags(
  version: string,
  command: string,
  flags: ReadonlyMap<string, string>,
  fail: (message: string) => never,
): void {
  const tables = tablesFor(version);
  const table = tables[command];
  for (const [name, value] of flags) {
    const optional = table?.optional.includes(name) || tables.global?.optional.includes(name);
    const boolean = table?.boolean.includes(name) || tables.global?.boolean.includes(name);
    if (boolean && !optional && !BOOL_TEXT.test(value))
      fail(`invalid argument "${value}" for "${name}" flag: strconv.ParseBool: parsing "${value}": invalid syntax`);
  }
}
