// Rebuilds test/fixtures/peer-commands/*.json, the ordinary and destructive shell lines two peer
// command guards test themselves against, from git snapshots of their own repositories:
//
//   node scripts/extract-peer-corpora.ts --dcg DIR --safety-net DIR
//
// DIR is a git directory (a bare clone works) of Dicklesworthstone/destructive_command_guard or
// kenryu42/claude-code-safety-net; the files are read at its HEAD, whose commit is recorded.
// Only lines whose expectation does not depend on the peer's configuration are kept: dcg's
// WARN lines, safety-net calls with a working directory or inside withEnv (paranoid, strict,
// worktree modes) and its custom-rule suite are left out. A line both peers list is kept once.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export type PeerExpectation = 'allow' | 'deny';

export interface PeerCase {
  readonly command: string;
  readonly expected: PeerExpectation;
  /** The file of the peer's repository the line comes from. */
  readonly path: string;
}

export interface PeerCorpus {
  readonly repo: string;
  readonly commit: string;
  readonly licence: string;
  readonly cases: readonly PeerCase[];
}

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['--git-dir', dir, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

function filesUnder(dir: string, folder: string, suffix: string): string[] {
  return git(dir, 'ls-tree', '-r', '--name-only', 'HEAD', folder)
    .split('\n')
    .filter((path) => path.endsWith(suffix))
    .sort();
}

function dcgTextCases(path: string, text: string, defaultExpectation: PeerExpectation | undefined): PeerCase[] {
  const cases: PeerCase[] = [];
  let open: { command: string; expected: PeerExpectation | undefined } | undefined;
  const flush = () => {
    if (open?.expected) cases.push({ command: open.command.replaceAll('\\n', '\n'), expected: open.expected, path });
    open = undefined;
  };
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) {
      flush();
      continue;
    }
    const prefixed = /^(ALLOW|BLOCK|WARN):(.*)$/.exec(line);
    if (prefixed) {
      flush();
      open = {
        command: prefixed[2] ?? '',
        expected: { ALLOW: 'allow', BLOCK: 'deny', WARN: undefined }[prefixed[1] as 'ALLOW'] as PeerExpectation,
      };
    } else if (open && !defaultExpectation) {
      // In the EXPECT:command files a heredoc's further lines follow its first one unprefixed.
      open.command += `\n${raw}`;
    } else {
      flush();
      open = { command: line, expected: defaultExpectation };
    }
  }
  flush();
  return cases;
}

/** dcg's corpus files hold `[[case]]` tables whose command is always a one-line basic string. */
function dcgTomlCases(path: string, text: string): PeerCase[] {
  const cases: PeerCase[] = [];
  let command: string | undefined;
  let expected: PeerExpectation | undefined;
  const flush = () => {
    if (command !== undefined && expected) cases.push({ command, expected, path });
    command = undefined;
    expected = undefined;
  };
  for (const line of text.split('\n')) {
    if (line.startsWith('[[case]]')) flush();
    const commandMatch = /^command\s*=\s*(".*")\s*$/.exec(line);
    if (commandMatch) command = JSON.parse(commandMatch[1] ?? '""') as string;
    const expectedMatch = /^expected(?:_decision)?\s*=\s*"(allow|deny)"/.exec(line);
    if (expectedMatch) expected = expectedMatch[1] as PeerExpectation;
  }
  flush();
  return cases;
}

function dcgCorpus(dir: string): PeerCorpus {
  const cases: PeerCase[] = [];
  const fixtures = 'tests/e2e/fixtures/commands';
  const defaults: Record<string, PeerExpectation | undefined> = { 'safe.txt': 'allow', 'dangerous.txt': 'deny' };
  for (const path of filesUnder(dir, fixtures, '.txt')) {
    cases.push(...dcgTextCases(path, git(dir, 'show', `HEAD:${path}`), defaults[path.slice(fixtures.length + 1)]));
  }
  for (const path of filesUnder(dir, 'tests/corpus', '.toml')) cases.push(...dcgTomlCases(path, git(dir, 'show', `HEAD:${path}`)));
  return { repo: 'Dicklesworthstone/destructive_command_guard', commit: git(dir, 'rev-parse', 'HEAD').trim(), licence: 'MIT', cases };
}

/** One JavaScript string literal starting at `text[start]` (a quote): its value and where it ends. */
function readStringLiteral(text: string, start: number): { value: string; end: number } | undefined {
  const quote = text[start];
  let value = '';
  let index = start + 1;
  while (index < text.length && text[index] !== quote) {
    const char = text[index] as string;
    if (quote === '`' && char === '$' && text[index + 1] === '{') return undefined;
    if (char !== '\\') {
      value += char;
      index++;
      continue;
    }
    const escaped = text[index + 1] ?? '';
    const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', '0': '\0', b: '\b', f: '\f', v: '\v' };
    if (escaped === 'u' || escaped === 'x') {
      const hex = escaped === 'x' ? text.slice(index + 2, index + 4) : /^\{([0-9a-fA-F]+)\}|^[0-9a-fA-F]{4}/.exec(text.slice(index + 2));
      const digits = typeof hex === 'string' ? hex : (hex?.[1] ?? hex?.[0] ?? '');
      value += String.fromCodePoint(Number.parseInt(digits, 16));
      index += 2 + (typeof hex === 'string' ? 2 : (hex?.[0].length ?? 0));
      continue;
    }
    value += simple[escaped] ?? (escaped === '\n' ? '' : escaped);
    index += 2;
  }
  return { value, end: index + 1 };
}

/**
 * The first arguments of `assertAllowed('…')` and `assertBlocked('…', '…')` calls whose arguments
 * are all string literals and that are not inside a `withEnv(…)` call. A small lexer (strings,
 * comments, parentheses) is enough for these test files; TypeScript 7 has no JavaScript API.
 */
function safetyNetFileCases(path: string, text: string): PeerCase[] {
  const cases: PeerCase[] = [];
  const openCalls: string[] = [];
  let index = 0;
  while (index < text.length) {
    const char = text[index] as string;
    if (char === '/' && text[index + 1] === '/') {
      index = text.indexOf('\n', index) === -1 ? text.length : text.indexOf('\n', index);
    } else if (char === '/' && text[index + 1] === '*') {
      index = text.indexOf('*/', index) + 2;
    } else if (char === "'" || char === '"' || char === '`') {
      index = readStringLiteral(text, index)?.end ?? text.indexOf('`', index + 1) + 1;
    } else if (char === ')') {
      openCalls.pop();
      index++;
    } else if (char === '(') {
      const name = /([A-Za-z_$][\w$]*)\s*$/.exec(text.slice(Math.max(0, index - 40), index))?.[1] ?? '';
      if ((name === 'assertAllowed' || name === 'assertBlocked') && !openCalls.includes('withEnv')) {
        const found = literalArguments(text, index + 1);
        if (found && name === 'assertAllowed' && found.length === 1) cases.push({ command: found[0] as string, expected: 'allow', path });
        if (found && name === 'assertBlocked' && found.length === 2) cases.push({ command: found[0] as string, expected: 'deny', path });
      }
      openCalls.push(name);
      index++;
    } else {
      index++;
    }
  }
  return cases;
}

/** The values of a call's arguments when every one is a string literal, else undefined. */
function literalArguments(text: string, start: number): string[] | undefined {
  const values: string[] = [];
  let index = start;
  for (;;) {
    while (/\s/.test(text[index] ?? '')) index++;
    if (text[index] === ')') return values;
    const literal = /['"`]/.test(text[index] ?? '') ? readStringLiteral(text, index) : undefined;
    if (!literal) return undefined;
    values.push(literal.value);
    index = literal.end;
    while (/\s/.test(text[index] ?? '')) index++;
    if (text[index] === ',') index++;
  }
}

function safetyNetCorpus(dir: string): PeerCorpus {
  const paths = filesUnder(dir, 'tests/core', '.test.ts').filter((path) => !path.includes('rules-custom'));
  const cases = paths.flatMap((path) => safetyNetFileCases(path, git(dir, 'show', `HEAD:${path}`)));
  return { repo: 'kenryu42/claude-code-safety-net', commit: git(dir, 'rev-parse', 'HEAD').trim(), licence: 'MIT', cases };
}

function withoutRepeats(corpus: PeerCorpus, seen: Set<string>): PeerCorpus {
  const cases = corpus.cases.filter((line) => {
    if (line.command.trim() === '' || seen.has(line.command)) return false;
    seen.add(line.command);
    return true;
  });
  return { ...corpus, cases };
}

function argument(name: string): string {
  const index = process.argv.indexOf(name);
  const value = index === -1 ? undefined : process.argv[index + 1];
  if (!value) {
    console.error(`usage: node scripts/extract-peer-corpora.ts --dcg GIT_DIR --safety-net GIT_DIR (missing ${name})`);
    process.exit(2);
  }
  return resolve(value);
}

if (import.meta.main) {
  const outDir = resolve(import.meta.dirname, '../test/fixtures/peer-commands');
  mkdirSync(outDir, { recursive: true });
  const seen = new Set<string>();
  const corpora = {
    dcg: withoutRepeats(dcgCorpus(argument('--dcg')), seen),
    'claude-code-safety-net': withoutRepeats(safetyNetCorpus(argument('--safety-net')), seen),
  };
  for (const [name, corpus] of Object.entries(corpora)) {
    writeFileSync(join(outDir, `${name}.json`), `${JSON.stringify(corpus, null, 1)}\n`);
    const allow = corpus.cases.filter((line) => line.expected === 'allow').length;
    console.log(`${name}: ${corpus.cases.length} lines (${allow} allow, ${corpus.cases.length - allow} deny) at ${corpus.commit}`);
  }
}
