import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { propertySeeds } from '../../../testing/property-seeds.ts';
import { type CommandValidator, createCommandValidator } from './command-validator.ts';

let validator: CommandValidator;
beforeAll(async () => {
  validator = await createCommandValidator();
});

/** A word of a core, and whether it is a path (paths may be written as globs or braces that reach them). */
interface CoreWord {
  readonly text: string;
  readonly path?: boolean;
}

const word = (text: string): CoreWord => ({ text });
const path = (text: string): CoreWord => ({ text, path: true });

/** Commands that destroy the host, disks or system directories. */
const DESTRUCTIVE_CORES: readonly (readonly CoreWord[])[] = [
  [word('rm'), word('-rf'), path('/')],
  [word('rm'), word('-rf'), path('/etc')],
  [word('rm'), word('-fr'), path('/usr')],
  [word('rm'), word('--recursive'), word('--force'), path('/boot')],
  [word('mkfs.ext4'), path('/dev/sda')],
  [word('dd'), word('if=/dev/zero'), word('of=/dev/sda')],
  [word('wipefs'), word('-a'), path('/dev/nvme0n1')],
  [word('shutdown'), word('-h'), word('now')],
  [word('chmod'), word('-R'), word('777'), path('/')],
  [word('mv'), path('/etc'), word('/tmp/old-etc')],
  [word('find'), path('/var'), word('-delete')],
  [word('truncate'), word('-s'), word('0'), path('/etc/fstab')],
];

/** Diagnostics a troubleshooting agent runs every day. */
const BENIGN_CORES: readonly (readonly CoreWord[])[] = [
  [word('ls'), word('-la'), path('/var/log')],
  [word('df'), word('-h')],
  [word('uptime')],
  [word('ps'), word('aux')],
  [word('journalctl'), word('-u'), word('nginx'), word('--since'), word('today')],
  [word('cat'), path('/etc/os-release')],
  [word('grep'), word('-r'), word('rm -rf'), word('.')],
  [word('systemctl'), word('status'), word('nginx')],
  [word('free'), word('-m')],
  [word('du'), word('-sh'), path('/var/lib/docker')],
  [word('tail'), word('-n'), word('100'), path('/var/log/syslog')],
  [word('rm'), word('-rf'), path('./build')],
];

/** Quote removal gives the same word back: what bash runs does not change. */
const QUOTINGS: ReadonlyArray<(text: string) => string> = [
  (text) => shellQuote(text),
  (text) => `"${text.replace(/(["\\$`])/g, '\\$1')}"`,
  (text) => `$'${[...text].map((char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`).join('')}'`,
  (text) => (text.length > 1 ? `${text[0]}''${text.slice(1)}` : text),
  (text) => (/^[\w./-]+$/.test(text) ? `\\${text}` : shellQuote(text)),
];

/** Pathname and brace expansions that still reach the same path (only for unquoted absolute paths). */
const EXPANSIONS: ReadonlyArray<(text: string) => string> = [
  (text) => text.replace(/^\/(\w)/, '/[$1]'),
  (text) => text.replace(/^\/(\w)(\w)/, '/$1?'),
  (text) => (text.length > 1 ? `/{${text.slice(1)},opsgate-none}` : text),
  (text) => `/${text.slice(1)}`.replace(/^\//, '//'),
];

/** Wrappers that run what follows them. `%` is the command, already quoted word by word; `%q` is it as one quoted string. */
const WRAPPERS: readonly string[] = [
  '%',
  'sudo %',
  'sudo -u root %',
  'env %',
  'env LANG=C %',
  'nice -n 5 %',
  'nohup %',
  'timeout 30 %',
  'command %',
  'busybox %',
  'sh -c %q',
  'bash -lc -- %q',
  'zsh -c %q',
  'eval %q',
  'su -c %q',
  'sudo sh -c %q',
  'watch -n 5 %q',
  'find /tmp -maxdepth 0 -exec %  \\;',
  'parallel % ::: opsgate',
];

/** Ways to put the command in a line. */
const CHAINS: readonly string[] = [
  '%',
  'true && %',
  '% ; uptime',
  'false || %',
  '( % )',
  '{ % ; }',
  'echo $( % )',
  '% &',
  'if true; then % ; fi',
];

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function compose(core: readonly CoreWord[], quoting: number[], expansion: number[], wrapper: string, chain: string): string {
  const words = core.map((part, index) => {
    const choice = expansion[index]!;
    if (part.path && choice < EXPANSIONS.length && part.text.startsWith('/') && part.text.length > 2 && !part.text.startsWith('/dev/'))
      return EXPANSIONS[choice]!(part.text);
    const quote = quoting[index]!;
    return quote < QUOTINGS.length ? QUOTINGS[quote]!(part.text) : /\s/.test(part.text) ? shellQuote(part.text) : part.text;
  });
  const command = words.join(' ');
  // Replacement functions: a replacement string would treat `$'` in the command as a pattern.
  const wrapped = wrapper.replace('%q', () => shellQuote(command)).replace('%', () => command);
  return chain.replace('%', () => wrapped);
}

function lines(cores: readonly (readonly CoreWord[])[], expand: boolean): fc.Arbitrary<string> {
  return fc
    .record({
      core: fc.constantFrom(...cores),
      quoting: fc.array(fc.nat(QUOTINGS.length + 2), { minLength: 6, maxLength: 6 }),
      expansion: fc.array(
        fc.nat(expand ? EXPANSIONS.length + 2 : 0).map((n) => (expand ? n : EXPANSIONS.length)),
        {
          minLength: 6,
          maxLength: 6,
        },
      ),
      wrapper: fc.constantFrom(...WRAPPERS),
      chain: fc.constantFrom(...CHAINS),
    })
    .map(({ core, quoting, expansion, wrapper, chain }) => compose(core, quoting, expansion, wrapper, chain));
}

describe('CommandValidator properties (fast-check)', () => {
  it.each(propertySeeds('destructive core × wrapper × quoting × expansion × chain'))(
    'blocks every composition of a destructive core (seed %i)',
    (seed) => {
      fc.assert(
        fc.property(lines(DESTRUCTIVE_CORES, true), (line) => {
          const verdict = validator.validate(line, 'linux');
          expect(verdict.verdict, line).toBe('block');
        }),
        { seed, numRuns: 600 },
      );
    },
  );

  it.each(propertySeeds('benign diagnostic × wrapper × quoting × chain'))(
    'allows every composition of a benign diagnostic (seed %i)',
    (seed) => {
      fc.assert(
        fc.property(lines(BENIGN_CORES, false), (line) => {
          const verdict = validator.validate(line, 'linux');
          expect(verdict.verdict, `${line}: ${verdict.reason}`).toBe('allow');
        }),
        { seed, numRuns: 600 },
      );
    },
  );
});
