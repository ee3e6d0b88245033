// The titles of the tests a vitest file declares, read from its source without running it: the
// first argument of each `it(…)`, `test(…)` and `describe(…)` call (through `.each(…)`,
// `.skipIf(…)` and the like, or a local alias such as `workflowIt?.(…)`), with comments ignored. A title declared through `.skip` or `.todo`
// does not run, so it is listed apart.

export interface DeclaredTitles {
  /** Titles of tests and suites that run (or may run, under a `skipIf`/`runIf` condition). */
  readonly runnable: readonly string[];
  /** Titles declared with `.skip` or `.todo`: they never run. */
  readonly skipped: readonly string[];
}

const NOT_RUN = new Set(['skip', 'todo']);
const QUOTES = new Set(["'", '"', '`']);

/** The source with every comment replaced by spaces, strings kept as they are. */
export function withoutComments(source: string): string {
  let out = '';
  let i = 0;
  while (i < source.length) {
    const ch = source[i]!;
    const next = source[i + 1];
    if (ch === '/' && next === '/') {
      while (i < source.length && source[i] !== '\n') {
        out += ' ';
        i += 1;
      }
      continue;
    }
    if (ch === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      const stop = end === -1 ? source.length : end + 2;
      out += source.slice(i, stop).replace(/[^\n]/g, ' ');
      i = stop;
      continue;
    }
    if (QUOTES.has(ch)) {
      const end = endOfString(source, i);
      out += source.slice(i, end);
      i = end;
      continue;
    }
    if (ch === '/' && REGEX_MAY_FOLLOW.test(out.trimEnd().slice(-1))) {
      const end = endOfRegex(source, i);
      out += source.slice(i, end).replace(/['"`]/g, ' ');
      i = end;
      continue;
    }
    out += ch;
    i += 1;
  }
  return out;
}

/** Characters after which a `/` starts a regular expression literal rather than a division. */
const REGEX_MAY_FOLLOW = /^$|[(,=:[!&|?{};]/;

/** The index just past the regular expression literal that starts at `start` (its flags included). */
function endOfRegex(source: string, start: number): number {
  let i = start + 1;
  let inClass = false;
  while (i < source.length && source[i] !== '\n') {
    const ch = source[i]!;
    if (ch === '\\') i += 2;
    else {
      if (ch === '[') inClass = true;
      else if (ch === ']') inClass = false;
      else if (ch === '/' && !inClass) {
        i += 1;
        while (/[a-z]/.test(source[i] ?? '')) i += 1;
        return i;
      }
      i += 1;
    }
  }
  return i;
}

/** The index just past the string literal that starts at `start`. */
function endOfString(source: string, start: number): number {
  const quote = source[start]!;
  let i = start + 1;
  while (i < source.length) {
    const ch = source[i]!;
    if (ch === '\\') i += 2;
    else if (ch === quote) return i + 1;
    else if (quote === '`' && ch === '$' && source[i + 1] === '{') i = endOfBalanced(source, i + 1);
    else i += 1;
  }
  return source.length;
}

/** The index just past the bracket group that opens at `open` (`(`, `[` or `{`), strings skipped. */
function endOfBalanced(source: string, open: number): number {
  let depth = 0;
  let i = open;
  while (i < source.length) {
    const ch = source[i]!;
    if (QUOTES.has(ch)) {
      i = endOfString(source, i);
      continue;
    }
    if (ch === '(' || ch === '[' || ch === '{') depth += 1;
    else if (ch === ')' || ch === ']' || ch === '}') {
      depth -= 1;
      if (depth === 0) return i + 1;
    }
    i += 1;
  }
  return source.length;
}

/** The text of the string literal at `start` as written, and with its escapes resolved when it has any. */
function stringValues(source: string, start: number): string[] {
  const end = endOfString(source, start);
  const written = source.slice(start + 1, end - 1);
  const resolved = written.replace(/\\(.)/g, (_, escaped: string) => escaped);
  return resolved === written ? [written] : [written, resolved];
}

/** `it`, `test`, `describe`, and a local alias of one (`const workflowIt = real ? undefined : it`). */
const CALLEE = /\b(it|test|describe|[a-z][A-Za-z0-9]*(?:It|Test|Describe))\b/g;

export function declaredTitles(source: string): DeclaredTitles {
  const code = withoutComments(source);
  const runnable: string[] = [];
  const skipped: string[] = [];
  for (const match of code.matchAll(CALLEE)) {
    if (match.index > 0 && /[.\w$]/.test(code[match.index - 1]!)) continue;
    let i = match.index + match[0].length;
    let neverRuns = false;
    for (;;) {
      while (/\s/.test(code[i] ?? '')) i += 1;
      if (code.startsWith('?.(', i)) i += 2;
      if (code[i] === '.') {
        const name = /^\.\s*([A-Za-z]+)/.exec(code.slice(i));
        if (!name) break;
        if (NOT_RUN.has(name[1]!)) neverRuns = true;
        i += name[0].length;
        continue;
      }
      if (code[i] !== '(') break;
      let arg = i + 1;
      while (/\s/.test(code[arg] ?? '')) arg += 1;
      if (QUOTES.has(code[arg] ?? '')) {
        const end = endOfString(code, arg);
        let after = end;
        while (/\s/.test(code[after] ?? '')) after += 1;
        if (code[after] === ',' || code[after] === ')') {
          (neverRuns ? skipped : runnable).push(...stringValues(code, arg));
          break;
        }
      }
      // An argument list that is not a title (`.each([...])`, `.skipIf(cond)`): step over it.
      i = endOfBalanced(code, i);
    }
  }
  return { runnable, skipped };
}

/** A title pattern (`it.each`'s `%s`, `%d`, `$name`, a template literal's `${…}`) as a regular expression. */
export function titlePattern(title: string): RegExp {
  const parts = title.split(/(%[sdifjoO#%]|\$\{[^}]*\}|\$[A-Za-z_][\w.]*)/);
  const source = parts
    .map((part, index) => (index % 2 === 1 ? (part === '%%' ? '%' : '.*?') : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`, 's');
}

/** True when `name` names one of the titles: a part of it, or an instance of an `each` pattern. */
export function namesTitle(name: string, titles: readonly string[]): boolean {
  return titles.some((title) => title.includes(name) || (/%|\$/.test(title) && titlePattern(title).test(name)));
}
