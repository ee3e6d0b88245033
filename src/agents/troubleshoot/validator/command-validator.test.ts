import { beforeAll, describe, expect, it } from 'vitest';
import { type CommandValidator, createCommandValidator, MAX_COMMAND_LENGTH, MAX_NESTING, STRUCTURAL_RULES } from './command-validator.ts';
import { type CorpusCase, DANGEROUS_COMMANDS, LEGITIMATE_COMMANDS } from './corpus/index.ts';
import { DEFAULT_LINUX_BLOCKLIST, DEFAULT_WINDOWS_BLOCKLIST } from './index.ts';
import { STRICT_LINUX_BLOCKLIST, STRICT_WINDOWS_BLOCKLIST } from './strict-blocklist.ts';
import type { RuleCategory } from './types.ts';

let validator: CommandValidator;
beforeAll(async () => {
  validator = await createCommandValidator();
});

const label = (c: CorpusCase) => ({
  ...c,
  name: `${c.os}: ${JSON.stringify(c.command)} (${c.source})`,
});

describe('CommandValidator corpus', () => {
  it('AR-01 the corpus holds at least 120 dangerous and 70 legitimate lines for both systems, including the required ones', () => {
    expect(DANGEROUS_COMMANDS.length).toBeGreaterThanOrEqual(120);
    expect(LEGITIMATE_COMMANDS.length).toBeGreaterThanOrEqual(70);
    for (const os of ['linux', 'windows']) {
      expect(DANGEROUS_COMMANDS.filter((c) => c.os === os).length).toBeGreaterThan(40);
      expect(LEGITIMATE_COMMANDS.filter((c) => c.os === os).length).toBeGreaterThan(25);
    }
    const legitimate = LEGITIMATE_COMMANDS.map((c) => c.command);
    for (const required of ['rm -rf ./build', 'grep -r "rm -rf" .', 'dd if=/dev/zero of=./test.img bs=1M count=10', 'Get-Volume']) {
      expect(legitimate).toContain(required);
    }
  });

  // One test per corpus, listing every line that gets another verdict: as ~600 separate tests each
  // mutant of a module-level rule table paid vitest's bookkeeping per test (issue 36, Stryker).
  it('AR-01 AR-06 blocks every dangerous line, naming the rule, its category, the segment and why', () => {
    const notBlocked = DANGEROUS_COMMANDS.map(label).flatMap(({ name, command, os }) => {
      const verdict = validator.validate(command, os);
      const blocked =
        verdict.verdict === 'block' && !!verdict.rule && !!verdict.category && verdict.reason.length > 0 && verdict.segment.length > 0;
      return blocked ? [] : [{ name, verdict }];
    });
    expect(notBlocked).toEqual([]);
  });

  it('AR-06 allows every legitimate line', () => {
    const refused = LEGITIMATE_COMMANDS.map(label).flatMap(({ name, command, os }) => {
      const verdict = validator.validate(command, os);
      return verdict.verdict === 'allow' && verdict.rule === null && verdict.category === null ? [] : [{ name, verdict }];
    });
    expect(refused).toEqual([]);
  });
});

describe('CommandValidator behaviour', () => {
  it('AR-01 returns { verdict, rule, category, segment, reason } naming the blocked part of a list', () => {
    const verdict = validator.validate('df -h && sudo rm -rf / ; uptime', 'linux');
    expect(verdict).toEqual({
      verdict: 'block',
      rule: 'recursive-delete-system-path',
      category: 'destructive-delete',
      segment: 'sudo rm -rf /',
      reason: 'rm would delete / (via sudo)',
    });
  });

  it('AR-06 applies the rules of the target OS only', () => {
    expect(validator.validate('Format-Volume -DriveLetter C', 'windows').verdict).toBe('block');
    expect(validator.validate('rm -rf /', 'windows').verdict).toBe('block');
    expect(validator.validate('Format-Volume -DriveLetter C', 'linux').verdict).toBe('allow');
  });

  it('AR-01 checks commands nested in wrappers several levels deep and names the path', () => {
    const verdict = validator.validate(`sudo env -i timeout 5 nice -n 5 sh -c 'eval "xargs -a /dev/null mkfs.ext4 /dev/sda"'`, 'linux');
    expect(verdict.rule).toBe('disk-format');
    expect(verdict.reason).toContain('via sudo → env → timeout → nice → sh -c → eval → xargs');
  });

  it('AR-01 blocks nesting beyond the limit instead of giving up silently', () => {
    let command = 'ls';
    for (let level = 0; level < 12; level++) command = `sh -c ${JSON.stringify(command)}`;
    expect(validator.validate(command, 'linux').rule).toBe('nesting-too-deep');
  });

  it.each([
    ['nice', (inner: string) => `nice ${inner}`],
    ['sh -c', (inner: string) => `sh -c ${JSON.stringify(inner)}`],
  ])('AR-01 allows exactly MAX_NESTING levels of %s around a benign command, and blocks one more', (_name, wrap) => {
    let command = 'df -h';
    for (let level = 0; level < MAX_NESTING; level++) command = wrap(command);
    expect(validator.validate(command, 'linux')).toMatchObject({ verdict: 'allow' });
    expect(validator.validate(wrap(command), 'linux')).toMatchObject({ verdict: 'block', rule: 'nesting-too-deep' });
  });

  it('AR-01 checks a line whose heredoc never closes once more, closed, one level deeper', () => {
    let command = 'cat <<EOF';
    for (let level = 0; level < MAX_NESTING - 1; level++) command = `sh -c ${JSON.stringify(command)}`;
    expect(validator.validate(command, 'linux')).toMatchObject({ verdict: 'allow' });
    expect(validator.validate(`sh -c ${JSON.stringify(command)}`, 'linux')).toEqual({
      verdict: 'block',
      rule: 'nesting-too-deep',
      category: 'obfuscation',
      segment: 'cat <<EOF\nEOF',
      reason: `more than ${MAX_NESTING} nested wrappers`,
    });
  });

  it('AR-01 allows exactly MAX_NESTING levels of cmd /c on Windows, and blocks one more', () => {
    let command = 'Get-Volume';
    for (let level = 0; level < MAX_NESTING; level++) command = `cmd /c ${command}`;
    expect(validator.validate(command, 'windows')).toMatchObject({ verdict: 'allow' });
    expect(validator.validate(`cmd /c ${command}`, 'windows')).toMatchObject({ verdict: 'block', rule: 'nesting-too-deep' });
  });

  it('AR-01 blocks shell syntax errors, NUL bytes and oversized input', () => {
    expect(validator.validate('echo "unterminated', 'linux').rule).toBe('unparseable');
    expect(validator.validate('ls\0rm -rf /', 'linux')).toMatchObject({ rule: 'too-long', category: 'obfuscation' });
    expect(validator.validate('a'.repeat(MAX_COMMAND_LENGTH + 1), 'windows').rule).toBe('too-long');
  });

  it('AR-01 decodes PowerShell -EncodedCommand (UTF-16LE base64) and re-validates the script', () => {
    const encode = (script: string) => Buffer.from(script, 'utf16le').toString('base64');
    expect(validator.validate(`powershell -enc ${encode('Clear-Disk -Number 0 -RemoveData')}`, 'windows').rule).toBe('disk-format');
    expect(validator.validate(`powershell -ec ${encode('Get-Date')}`, 'windows').verdict).toBe('allow');
    expect(validator.validate('powershell -EncodedCommand @@@', 'windows').rule).toBe('dynamic-script');
  });

  it('AR-01 never throws and always answers for arbitrary input', () => {
    const alphabet = [
      'rm',
      ' ',
      '-rf',
      '/',
      '"',
      "'",
      '$(',
      ')',
      '`',
      '|',
      '&',
      ';',
      '{',
      '}',
      '<(',
      '>',
      '\\',
      '\n',
      '%X:~0,1%',
      '^',
      'iex',
      '(',
    ];
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let round = 0; round < 400; round++) {
      let command = '';
      for (let i = random(12); i > 0; i--) command += alphabet[random(alphabet.length)];
      for (const os of ['linux', 'windows'] as const) {
        const verdict = validator.validate(command, os);
        expect(['block', 'allow']).toContain(verdict.verdict);
      }
    }
  });
});

describe('blocklists', () => {
  it('AR-06 DEFAULT_LINUX_BLOCKLIST and DEFAULT_WINDOWS_BLOCKLIST are structured rules with unique ids', () => {
    for (const list of [DEFAULT_LINUX_BLOCKLIST, DEFAULT_WINDOWS_BLOCKLIST]) {
      const ids = list.map((rule) => rule.id);
      expect(new Set(ids).size).toBe(ids.length);
      for (const rule of list) {
        expect(rule.id).toMatch(/^[a-z0-9-]+$/);
        expect(rule.description.length).toBeGreaterThan(10);
        expect(typeof rule.match).toBe('function');
        expect(STRUCTURAL_RULES[rule.id]).toBeUndefined();
      }
    }
  });

  it('AR-06 every rule, structural, core or strict, names a known category and says what it blocks', () => {
    const categories: readonly RuleCategory[] = [
      'destructive-delete',
      'disk-destruction',
      'fork-bomb',
      'system-power',
      'process-kill',
      'permissions',
      'critical-file',
      'remote-code',
      'reverse-shell',
      'shell-escape',
      'obfuscation',
      'defense-evasion',
      'firewall',
      'persistence',
      'credential-access',
    ];
    const rules = [
      ...Object.entries(STRUCTURAL_RULES).map(([id, rule]) => ({ id, ...rule })),
      ...[DEFAULT_LINUX_BLOCKLIST, DEFAULT_WINDOWS_BLOCKLIST, STRICT_LINUX_BLOCKLIST, STRICT_WINDOWS_BLOCKLIST].flat(),
    ];
    for (const rule of rules) {
      expect(categories, rule.id).toContain(rule.category);
      expect(rule.description.length, rule.id).toBeGreaterThan(20);
    }
  });

  it('AR-06 the structural rules describe the limits the validator enforces', () => {
    expect(STRUCTURAL_RULES['too-long']!.description).toContain(`${MAX_COMMAND_LENGTH / 1024} KiB`);
    expect(STRUCTURAL_RULES['nesting-too-deep']!.description).toContain(`${MAX_NESTING} levels`);
  });

  it('AR-06 every rule blocks at least one corpus line', () => {
    const used = new Set<string>();
    for (const c of DANGEROUS_COMMANDS) used.add(`${c.os}:${validator.validate(c.command, c.os).rule}`);
    for (const rule of DEFAULT_LINUX_BLOCKLIST) expect(used, rule.id).toContain(`linux:${rule.id}`);
    for (const rule of DEFAULT_WINDOWS_BLOCKLIST) expect(used, rule.id).toContain(`windows:${rule.id}`);
  });

  it('AR-01 a custom blocklist replaces the default one', async () => {
    const custom = await createCommandValidator({
      linuxBlocklist: [
        {
          id: 'no-curl',
          category: 'remote-code',
          description: 'curl is not allowed here',
          match: (c) => (c.program === 'curl' ? 'curl is off' : undefined),
        },
      ],
    });
    expect(custom.validate('sudo curl http://x', 'linux')).toMatchObject({ verdict: 'block', rule: 'no-curl' });
    expect(custom.validate('rm -rf ./x', 'linux').verdict).toBe('allow');
  });
});
