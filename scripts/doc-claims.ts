// Checks what the docs quote against the repository: code quoted from a file still matches it,
// every repository path and relative link names something that exists, every `npm run X` is a
// script of package.json. `node scripts/doc-claims.ts` prints what does not hold and exits 1.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, resolve } from 'node:path';

export interface Doc {
  /** The doc's path from the repository root. */
  readonly path: string;
  readonly text: string;
}

export interface Repository {
  exists(path: string): boolean;
  read(path: string): string | undefined;
  readonly scripts: ReadonlySet<string>;
}

/** Top-level folders whose paths a doc may name in backticks. */
const ROOTS = ['src', 'test', 'docs', 'scripts', 'eval', 'bench', 'examples', 'deploy', 'bin', 'notes'];
const REPO_PATH = new RegExp(`^(?:${ROOTS.join('|')})/[\\w./@+-]*$`);
/** What builds and runs write, absent from a clean clone. */
const GENERATED = ['src/web/dist', 'eval/cassettes', 'bench/results', 'test-results'];
/** `bench/results/NAME.json`, `npm run bench:NAME`: a placeholder, not a name. */
const PLACEHOLDER = /[A-Z]{3,}|<[^>]*>/;
/** `<!-- quote: examples/agents/dns/errors.ts -->` right above a fenced block: the block is a verbatim part of that file. */
const QUOTE = /<!-- quote: (\S+) -->\n```\w*\n([\s\S]*?)\n```/g;
/** `<!-- new-paths: src/agents/dns test/dns -->`: paths the reader creates by following the doc. */
const NEW_PATHS = /<!-- new-paths: ([^>]*?) -->/g;

/** Quoted blocks that no longer match the file they quote. */
export function quoteProblems(doc: Doc, repo: Repository): string[] {
  const problems: string[] = [];
  for (const [, file, block] of doc.text.matchAll(QUOTE)) {
    const source = repo.read(file!);
    if (source === undefined) problems.push(`${doc.path}: quotes ${file}, which does not exist`);
    else if (!source.includes(block!)) problems.push(`${doc.path}: the block quoted from ${file} no longer matches it; copy it again`);
  }
  return problems;
}

function withoutFences(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '');
}

/** Repository paths in backticks and relative links that name nothing. */
export function pathProblems(doc: Doc, repo: Repository): string[] {
  const created = [...doc.text.matchAll(NEW_PATHS)].flatMap(([, list]) => list!.trim().split(/\s+/));
  const isNew = (path: string) =>
    created.some((prefix) => path === prefix || path.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`));
  const problems: string[] = [];
  const prose = withoutFences(doc.text);
  for (const [, token] of prose.matchAll(/`([^`\s]+)`/g)) {
    const path = token!.replace(/[.,:;]+$/, '');
    const bare = path.replace(/\/$/, '');
    if (!REPO_PATH.test(path) || PLACEHOLDER.test(path) || isNew(bare) || GENERATED.some((dir) => bare.startsWith(dir))) continue;
    // A README may name its own folder's files from there (`src/app.tsx` in src/web/README.md).
    if (!repo.exists(bare) && !repo.exists(join(dirname(doc.path), bare)))
      problems.push(`${doc.path}: names ${path}, which does not exist`);
  }
  for (const [, target] of prose.replace(/`[^`\n]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^(?:[a-z]+:|#)/i.test(target!)) continue;
    const path = normalize(join(dirname(doc.path), target!.split('#')[0]!)).replace(/\/$/, '');
    if (path.startsWith('..')) problems.push(`${doc.path}: links ${target}, outside the repository`);
    else if (!isNew(path) && !repo.exists(path)) problems.push(`${doc.path}: links ${target}, which does not exist`);
  }
  return problems;
}

/** `npm run X` where package.json has no script X. */
export function npmScriptProblems(doc: Doc, repo: Repository): string[] {
  return [...doc.text.matchAll(/\bnpm run (?:-\S+\s+)*(\w[\w:.-]*)/g)]
    .map(([, name]) => name!.replace(/[.:]+$/, ''))
    .filter((name) => !PLACEHOLDER.test(name) && !repo.scripts.has(name))
    .map((name) => `${doc.path}: runs npm run ${name}, which package.json does not define`);
}

export function docClaimProblems(docs: readonly Doc[], repo: Repository): string[] {
  return docs.flatMap((doc) => [...quoteProblems(doc, repo), ...pathProblems(doc, repo), ...npmScriptProblems(doc, repo)]);
}

const root = resolve(import.meta.dirname, '..');

function markdownUnder(dir: string): string[] {
  if (!existsSync(join(root, dir))) return [];
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'dist' || name === 'fixtures') return [];
    if (statSync(join(root, path)).isDirectory()) return markdownUnder(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

/** The docs a newcomer reads: the root pages, docs/, and the READMEs in the code. */
export function repositoryDocs(): Doc[] {
  const paths = [
    ...['README.md', 'CONTRIBUTING.md'].filter((path) => existsSync(join(root, path))),
    ...markdownUnder('docs'),
    ...markdownUnder('src').filter((path) => path.endsWith('README.md')),
    ...markdownUnder('examples'),
  ];
  return paths.map((path) => ({ path, text: readFileSync(join(root, path), 'utf8') }));
}

export function theRepository(): Repository {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
  return {
    exists: (path) => existsSync(join(root, path)),
    read: (path) => (existsSync(join(root, path)) ? readFileSync(join(root, path), 'utf8') : undefined),
    scripts: new Set(Object.keys(pkg.scripts ?? {})),
  };
}

if (import.meta.main) {
  const problems = docClaimProblems(repositoryDocs(), theRepository());
  for (const problem of problems) console.error(problem);
  console.log(problems.length === 0 ? 'doc claims OK' : `${problems.length} doc claims do not hold`);
  process.exit(problems.length === 0 ? 0 : 1);
}
