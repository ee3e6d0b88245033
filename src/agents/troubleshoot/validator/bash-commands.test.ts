import { beforeAll, describe, expect, it } from 'vitest';
import type { Parser } from 'web-tree-sitter';
import { collectSimpleCommands } from './bash-commands.ts';
import { loadBashParser } from './bash-parser.ts';

let parser: Parser;
beforeAll(async () => {
  parser = await loadBashParser();
});

function commands(source: string) {
  const tree = parser.parse(source)!;
  try {
    return collectSimpleCommands(tree.rootNode);
  } finally {
    tree.delete();
  }
}

describe('collectSimpleCommands', () => {
  it('AR-01 finds every simple command in lists, pipelines, subshells, groups, loops, substitutions and functions', () => {
    const source = 'a && b || c; (d | e) & { f; }; for x in 1; do g; done; echo $(h) `i` <(j) >(k); fn() { l; }; if m; then n; fi';
    expect(commands(source).map((c) => c.program)).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'echo', 'h', 'i', 'j', 'k', 'l', 'm', 'n']);
  });

  it('AR-01 resolves quoting and escapes in command names, and marks computed names', () => {
    const found = commands(`'r''m' x; r\\m x; "rm" x; $'\\x72m' x; $X x; r*m x; $(cat rm) x`);
    expect(found.map((c) => [c.program, c.nameIsStatic]).filter(([program]) => program !== 'echo')).toEqual([
      ['rm', true],
      ['rm', true],
      ['rm', true],
      ['rm', true],
      ['$X', false],
      ['r*m', false],
      ['$(cat rm)', false],
    ]);
  });

  it('decodes a command word that only echoes static words: `$(echo rm) -rf /` is `rm -rf /` (issue 29)', () => {
    const found = commands('$(echo rm) -rf /; $(echo ls -la) /tmp; $(printf df); "$(echo hello)"; $(echo $X); $(echo -e "\\x72m") x');
    expect(
      found
        .filter((c) => c.program !== 'echo' && c.program !== 'printf')
        .map((c) => [c.program, c.nameIsStatic, c.args.map((a) => a.text)]),
    ).toEqual([
      ['rm', true, ['-rf', '/']],
      ['ls', true, ['-la', '/tmp']],
      ['df', true, []],
      ['hello', true, []],
      ['$(echo $X)', false, []],
      ['$(echo -e "\\x72m")', false, ['x']],
    ]);
  });

  it('AR-01 records stdin from pipes, files, heredocs and here-strings, and redirects of enclosing statements', () => {
    const found = commands('curl x | sh; sh < f; cat <<EOF | bash\nx\nEOF\npython3 <<< "print(1)"; { dd if=x; } > /dev/sda');
    expect(found.map((c) => [c.program, c.input])).toEqual([
      ['curl', undefined],
      ['sh', 'pipe'],
      ['sh', 'file'],
      ['bash', 'pipe'],
      ['cat', 'heredoc'],
      ['python3', 'herestring'],
      ['dd', undefined],
    ]);
    expect(found[6]!.redirects.map((r) => r.target.text)).toEqual(['/dev/sda']);
  });

  it('AR-01 marks a function that spawns itself in a pipeline or background', () => {
    expect(commands(':(){ :|:& };:').filter((c) => c.recursiveSpawn)).toHaveLength(2);
    expect(commands('count() { count_files; }; count').some((c) => c.recursiveSpawn)).toBe(false);
  });
});
