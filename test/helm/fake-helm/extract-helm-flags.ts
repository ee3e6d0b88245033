/**
 * Writes `test/helm/fixtures/helm-flags.json`: the flags each helm command the CLI backend runs
 * accepts, per Helm version, read from Helm's own source (`f.*Var*(…, "name", …)` in the command's
 * constructor and the flag helpers it calls, plus the global flags of `pkg/cli/environment.go`).
 * Run once per new Helm release: `node test/helm/fake-helm/extract-helm-flags.ts /path/to/helm/repo`
 * (a clone or the fetch tool's mirror of github.com/helm/helm).
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const repo = process.argv[2];
if (!repo) {
  console.error('usage: node test/helm/fake-helm/extract-helm-flags.ts HELM_REPO (a git clone of github.com/helm/helm)');
  process.exit(2);
}
const VERSIONS: Record<string, { ref: string; dir: string }> = {
  'v3.12.3': { ref: 'v3.12.3', dir: 'cmd/helm' },
  'v3.13.0': { ref: 'v3.13.0', dir: 'cmd/helm' },
  'v3.21.4': { ref: 'v3.21.4', dir: 'cmd/helm' },
  'v4-main': { ref: 'e9b85e4de', dir: 'pkg/cmd' },
};
const COMMANDS: Record<string, string> = {
  version: 'newVersionCmd',
  list: 'newListCmd',
  status: 'newStatusCmd',
  history: 'newHistoryCmd',
  'get metadata': 'newGetMetadataCmd',
  'get values': 'newGetValuesCmd',
  'get manifest': 'newGetManifestCmd',
  'get hooks': 'newGetHooksCmd',
  install: 'newInstallCmd',
  upgrade: 'newUpgradeCmd',
  rollback: 'newRollbackCmd',
  uninstall: 'newUninstallCmd',
  pull: 'newPullCmd',
  'search repo': 'newSearchRepoCmd',
};

const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
// f.BoolVar(&x, "name", …), f.VarP(value(a, b), nameFlag, "o", …), f.String("name", "default", …)
const FLAG = /\.(\w+)\(\s*(?:(?!")[^,()]*(?:\([^()]*\))?[^,()]*,\s*)?("[\w-]+"|\w+Flag)\s*,\s*(?:"(\w)"\s*,)?/g;
const TYPES = /^(Bool|String|Int|Int64|Uint|Duration|Float64|StringSlice|StringArray|StringToString|Var)(Var)?P?$/;

interface Table {
  boolean: string[];
  value: string[];
  /** Flags with NoOptDefVal: bare or `--flag=value`. */
  optional: string[];
}

function functions(source: string): Map<string, string> {
  const map = new Map<string, string>();
  const starts = [...source.matchAll(/^func (?:\([^)]*\) )?(\w+)\(/gm)];
  for (const [index, match] of starts.entries()) {
    const end = starts[index + 1]?.index ?? source.length;
    map.set(match[1]!, source.slice(match.index, end));
  }
  return map;
}

function extract(version: { ref: string; dir: string }): Record<string, Table> {
  const files = git('ls-tree', '--name-only', `${version.ref}:${version.dir}`)
    .split('\n')
    .filter((f) => f.endsWith('.go') && !f.endsWith('_test.go'));
  const sources = files.map((f) => git('show', `${version.ref}:${version.dir}/${f}`)).join('\n');
  const env = git('show', `${version.ref}:pkg/cli/environment.go`);
  const bodies = functions(sources);
  const constants = new Map([...`${sources}\n${env}`.matchAll(/(\w+Flag)\s*=\s*"([\w-]+)"/g)].map((m) => [m[1]!, m[2]!]));
  const collect = (text: string, table: Table) => {
    for (const match of text.matchAll(FLAG)) {
      if (!TYPES.test(match[1]!)) continue;
      const name = match[2]!.startsWith('"') ? match[2]!.slice(1, -1) : constants.get(match[2]!);
      if (!name) continue;
      const names = [`--${name}`, ...(match[3] ? [`-${match[3]}`] : [])];
      (match[1]!.startsWith('Bool') ? table.boolean : table.value).push(...names);
    }
    for (const match of text.matchAll(/Lookup\("([\w-]+)"\)\.NoOptDefVal/g)) table.optional.push(`--${match[1]}`);
    // Helm 4's AddWaitFlag sets the NoOptDefVal of "wait" through a variable.
    if (/NoOptDefVal\s*=\s*string\(kube\.StatusWatcherStrategy\)|waitFlag\.NoOptDefVal/.test(text)) table.optional.push('--wait');
  };
  const tables: Record<string, Table> = {};
  const global: Table = { boolean: ['--help', '-h'], value: [], optional: [] };
  collect(functions(env).get('AddFlags') ?? '', global);
  tables.global = global;
  for (const [command, commandConstructor] of Object.entries(COMMANDS)) {
    const table: Table = { boolean: [], value: [], optional: [] };
    const seen = new Set<string>();
    const visit = (name: string) => {
      if (seen.has(name)) return;
      seen.add(name);
      const body = bodies.get(name);
      if (!body) return;
      collect(body, table);
      for (const call of body.matchAll(/\b([aA]dd\w*Flags?|bind\w+Flag)\(/g)) visit(call[1]!);
    };
    visit(commandConstructor);
    tables[command] = {
      boolean: [...new Set(table.boolean)].sort(),
      value: [...new Set(table.value)].sort(),
      optional: [...new Set(table.optional)].sort(),
    };
  }
  return tables;
}

const out = Object.fromEntries(Object.entries(VERSIONS).map(([name, version]) => [name, extract(version)]));
const file = new URL('../fixtures/helm-flags.json', import.meta.url).pathname;
writeFileSync(
  file,
  `${JSON.stringify(
    {
      source: `github.com/helm/helm at ${Object.values(VERSIONS)
        .map((v) => v.ref)
        .join(', ')}`,
      versions: out,
    },
    null,
    1,
  )}\n`,
);
console.log(`wrote ${file}`);
