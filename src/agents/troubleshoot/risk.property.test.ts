import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Risk } from '../../core/tools/index.ts';
import { propertySeeds } from '../../testing/property-seeds.ts';
import { type CommandRiskAssessor, createCommandRiskAssessor } from './risk.ts';

let risk: CommandRiskAssessor;
beforeAll(async () => {
  risk = await createCommandRiskAssessor();
});

const RANK: Readonly<Record<Risk, number>> = { low: 0, medium: 1, high: 2, critical: 3 };

/** Commands of every level: reads, network calls, writes, kills, service changes, deletes, disks. */
const CORES: readonly string[] = [
  'df -h',
  'uptime',
  'ps aux --sort=-%mem',
  'journalctl -u nginx -n 50',
  "awk '{print $1}' /var/log/nginx/access.log",
  'curl -s http://localhost:8080/health',
  'sort -o /tmp/out /tmp/in',
  'sort -o /etc/shadow /dev/null',
  'kill -9 4242',
  'systemctl restart nginx',
  'rm /tmp/app.pid',
  'rm -rf /var/lib/mysql',
  'rm -rf /tmp/victimdir',
  'dd if=/dev/zero of=/dev/sda',
  'ip link set eth0 down',
  'sysctl -w vm.swappiness=1',
  'sed -i s/a/b/ /etc/hosts',
  'find /var/lib/postgresql -delete',
  'shred -u /tmp/x',
  'reboot',
  './cleanup.sh',
];

/** Reads a person runs first, and which stay low however they are dressed. */
const READS: readonly string[] = [
  'df -h',
  'uptime',
  'free -m',
  'ps aux',
  'ls -la /var/log',
  'cat /etc/os-release',
  'journalctl -u nginx --since today',
  'systemctl status nginx',
  'tail -n 100 /var/log/syslog',
  'du -sh /var/lib/docker',
  'ss -tlnp',
  'ip addr show',
  'sort /var/log/app.log',
  "awk '$9 >= 500 {print $7}' /var/log/nginx/access.log",
  'grep -c error /var/log/syslog',
];

function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Wrappers that run what follows them: `%` is the command as written, `%q` it as one quoted word, `%d` as a double-quoted string literal. */
const WRAPPERS: readonly string[] = [
  'timeout 5 %',
  'timeout -s KILL 30 %',
  'nice -n 10 %',
  'ionice -c3 %',
  'env LANG=C %',
  'nohup %',
  'stdbuf -oL %',
  'sudo %',
  'sudo -u root %',
  'chroot / %',
  'setsid %',
  'time %',
  'command %',
  'xargs %',
  'watch -n 5 %q',
  'sh -c %q',
  'bash -lc -- %q',
  'sudo sh -c %q',
  'su -c %q',
  'eval %q',
  'python3 -c %p',
  'perl -e %l',
];

function wrap(wrapper: string, command: string): string {
  const python = quote(`import os; os.system(${JSON.stringify(command)})`);
  const perl = quote(`system(${JSON.stringify(command)})`);
  return wrapper
    .replace('%q', () => quote(command))
    .replace('%p', () => python)
    .replace('%l', () => perl)
    .replace('%', () => command);
}

const TARGETS = [
  '/tmp/out',
  './out.txt',
  '/etc/nginx/nginx.conf',
  '/etc/shadow',
  '/var/lib/mysql/ibdata1',
  '/root/.ssh/authorized_keys',
  '"$OUT"',
];

/** Ways to send a command's output to a file. */
const OUTPUTS: ReadonlyArray<(command: string, target: string) => string> = [
  (command, target) => `${command} > ${target}`,
  (command, target) => `${command} >> ${target}`,
  (command, target) => `${command} 2> ${target}`,
  (command, target) => `${command} &> ${target}`,
  (command, target) => `${command} | tee ${target}`,
  (command, target) => `${command} | tee -a ${target}`,
  (command, target) => `${command} | sort -o ${target}`,
  (command, target) => `${command} | dd of=${target}`,
  (command, target) => `${command} | uniq - ${target}`,
];

/** Prefixes and shells that run a read as it is (applied to the simple command first). */
const READ_WRAPPERS: ReadonlyArray<(command: string) => string> = [
  (command) => `timeout 10 ${command}`,
  (command) => `sudo ${command}`,
  (command) => `sudo -u postgres ${command}`,
  (command) => `nice -n 19 ${command}`,
  (command) => `env LANG=C ${command}`,
  (command) => `stdbuf -oL ${command}`,
  (command) => `watch -n 5 ${quote(command)}`,
  (command) => `sh -c ${quote(command)}`,
];

/** Pipelines, lists and substitutions around it that only read too. */
const READ_CONTEXTS: ReadonlyArray<(command: string) => string> = [
  (command) => command,
  (command) => `${command} | head -n 20`,
  (command) => `${command} 2>/dev/null`,
  (command) => `${command} 2>&1 | grep -i error`,
  (command) => `${command} | sort | uniq -c | sort -rn`,
  (command) => `echo $(${command})`,
  (command) => `{ ${command}; } | wc -l`,
  (command) => `uptime; ${command} && date`,
];

describe('troubleshoot risk properties (fast-check, review H1-new)', () => {
  it.each(propertySeeds('risk: wrapping never lowers it'))('wrapping a command in any wrapper never lowers its risk (seed %i)', (seed) => {
    fc.assert(
      fc.property(fc.constantFrom(...CORES), fc.array(fc.constantFrom(...WRAPPERS), { minLength: 1, maxLength: 3 }), (core, wrappers) => {
        const line = wrappers.reduce((inner, wrapper) => wrap(wrapper, inner), core);
        const bare = risk.assess(core);
        const wrapped = risk.assess(line);
        expect(RANK[wrapped.level], `${line}: ${wrapped.reason} (bare: ${bare.level})`).toBeGreaterThanOrEqual(RANK[bare.level]);
      }),
      { seed, numRuns: 500 },
    );
  });

  it.each(propertySeeds('risk: an output never lowers it'))(
    'adding an output option or redirection never lowers the risk, and the result is at least high (seed %i)',
    (seed) => {
      fc.assert(
        fc.property(fc.constantFrom(...CORES), fc.constantFrom(...OUTPUTS), fc.constantFrom(...TARGETS), (core, output, target) => {
          const line = output(core, target);
          const bare = risk.assess(core);
          const written = risk.assess(line);
          expect(RANK[written.level], `${line}: ${written.reason}`).toBeGreaterThanOrEqual(Math.max(RANK[bare.level], RANK.high));
        }),
        { seed, numRuns: 400 },
      );
    },
  );

  it.each(propertySeeds('risk: a benign read stays low'))('a benign read stays low however it is dressed (seed %i)', (seed) => {
    fc.assert(
      fc.property(
        fc.constantFrom(...READS),
        fc.array(fc.constantFrom(...READ_WRAPPERS), { maxLength: 2 }),
        fc.array(fc.constantFrom(...READ_CONTEXTS), { minLength: 1, maxLength: 2 }),
        (read, wrappers, contexts) => {
          const line = contexts.reduce(
            (inner, context) => context(inner),
            wrappers.reduce((inner, wrapper) => wrapper(inner), read),
          );
          const assessed = risk.assess(line);
          expect(assessed.level, `${line}: ${assessed.reason}`).toBe('low');
        },
      ),
      { seed, numRuns: 400 },
    );
  });
});
