import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { propertySeeds } from '../../../testing/property-seeds.ts';
import { type CommandValidator, createCommandValidator } from './command-validator.ts';

let validator: CommandValidator;
beforeAll(async () => {
  validator = await createCommandValidator();
});

/** A Windows command as words: `cmdlet` words may be written with PowerShell escapes, `path` words with variables or short names. */
interface CoreWord {
  readonly text: string;
  readonly kind?: 'cmdlet' | 'builtin' | 'path';
}

const w = (text: string, kind?: CoreWord['kind']): CoreWord => (kind ? { text, kind } : { text });

const DESTRUCTIVE: readonly (readonly CoreWord[])[] = [
  [w('Remove-Item', 'cmdlet'), w('-Recurse'), w('-Force'), w('C:\\Windows', 'path')],
  [w('Remove-Item', 'cmdlet'), w('C:\\Program Files', 'path'), w('-Recurse')],
  [w('Format-Volume', 'cmdlet'), w('-DriveLetter'), w('C')],
  [w('Clear-Disk', 'cmdlet'), w('-Number'), w('0'), w('-RemoveData')],
  [w('rd', 'builtin'), w('/s'), w('/q'), w('C:\\Windows', 'path')],
  [w('del', 'builtin'), w('/f'), w('/s'), w('/q'), w('C:\\Windows\\System32', 'path')],
];

const BENIGN: readonly (readonly CoreWord[])[] = [
  [w('Get-Service', 'cmdlet'), w('W3SVC')],
  [w('Get-ChildItem', 'cmdlet'), w('C:\\Logs', 'path'), w('-Recurse')],
  [w('Get-EventLog', 'cmdlet'), w('-LogName'), w('System'), w('-Newest'), w('20')],
  [w('Test-NetConnection', 'cmdlet'), w('example.com'), w('-Port'), w('443')],
  [w('ipconfig', 'builtin'), w('/all')],
  [w('Remove-Item', 'cmdlet'), w('C:\\temp\\build', 'path'), w('-Recurse')],
];

/** Spellings PowerShell or cmd.exe resolve to the same word. */
const CMDLET_SPELLINGS: ReadonlyArray<(text: string) => string> = [
  (text) => text,
  (text) => text.toUpperCase(),
  (text) => text.toLowerCase(),
  (text) => `${text.slice(0, 2)}\`${text.slice(2)}`,
];
const BUILTIN_SPELLINGS: ReadonlyArray<(text: string) => string> = [
  (text) => text,
  (text) => text.toUpperCase(),
  (text) => `${text[0]}^${text.slice(1)}`,
];
const SYSTEM_PATH_SPELLINGS: ReadonlyArray<(text: string) => string> = [
  (text) => text,
  (text) => text.toLowerCase(),
  (text) => text.replace(/^C:/, '%SystemDrive%'),
  (text) => text.replace(/^C:\\Windows/, '$env:SystemRoot'),
  (text) => text.replace(/^C:\\Program Files$/, 'C:\\PROGRA~1'),
  (text) => text.replace(/\\/g, '/'),
];

/** `%` is the command line; `%s` is it with its double quotes made single; `%b` is it as -EncodedCommand. */
const WRAPPERS: readonly string[] = [
  '%',
  'powershell -Command %',
  'powershell -NoProfile -c "%s"',
  'pwsh -c %',
  'cmd /c %',
  'Invoke-Command -ScriptBlock { % }',
  '& { % }',
  'powershell -EncodedCommand %b',
];
const CHAINS: readonly string[] = ['%', 'Get-Date; %', 'dir && %', '% | Out-Null', 'if ($true) { % }', 'hostname & %'];

function spell(word: CoreWord, choice: number, destructive: boolean): string {
  const pick = <T>(list: readonly T[]): T => list[choice % list.length]!;
  let text = word.text;
  if (word.kind === 'cmdlet') text = pick(CMDLET_SPELLINGS)(text);
  else if (word.kind === 'builtin') text = pick(BUILTIN_SPELLINGS)(text);
  else if (word.kind === 'path' && destructive) text = pick(SYSTEM_PATH_SPELLINGS)(text);
  return /\s/.test(text) ? `"${text}"` : text;
}

function lines(cores: readonly (readonly CoreWord[])[], destructive: boolean): fc.Arbitrary<string> {
  return fc
    .record({
      core: fc.constantFrom(...cores),
      choices: fc.array(fc.nat(11), { minLength: 6, maxLength: 6 }),
      wrapper: fc.constantFrom(...WRAPPERS),
      chain: fc.constantFrom(...CHAINS),
    })
    .map(({ core, choices, wrapper, chain }) => {
      const command = core.map((word, index) => spell(word, choices[index]!, destructive)).join(' ');
      const builtin = core[0]!.kind === 'builtin';
      // cmd.exe built-ins run only where cmd runs them; PowerShell wrappers would not find `rd /s`.
      const usable = builtin && !['%', 'cmd /c %'].includes(wrapper) ? 'cmd /c %' : wrapper;
      const encoded = Buffer.from(command, 'utf16le').toString('base64');
      const wrapped = usable
        .replace('%b', () => encoded)
        .replace('%s', () => command.replace(/"/g, "'"))
        .replace('%', () => command);
      return chain.replace('%', () => wrapped);
    });
}

describe('CommandValidator Windows properties (fast-check)', () => {
  it.each(propertySeeds('Windows destructive core × spelling × wrapper × chain'))(
    'blocks every composition of a destructive Windows core (seed %i)',
    (seed) => {
      fc.assert(
        fc.property(lines(DESTRUCTIVE, true), (line) => {
          expect(validator.validate(line, 'windows').verdict, line).toBe('block');
        }),
        { seed, numRuns: 400 },
      );
    },
  );

  it.each(propertySeeds('Windows benign diagnostic × spelling × wrapper × chain'))(
    'allows every composition of a benign Windows diagnostic (seed %i)',
    (seed) => {
      fc.assert(
        fc.property(lines(BENIGN, false), (line) => {
          const verdict = validator.validate(line, 'windows');
          expect(verdict.verdict, `${line}: ${verdict.reason}`).toBe('allow');
        }),
        { seed, numRuns: 400 },
      );
    },
  );
});
