import { parseFlags } from '../validator/flags.ts';
import type { SimpleCommand } from '../validator/index.ts';
import { changesAny, type Effect, effect } from './effect.ts';

type Detector = (command: SimpleCommand) => Effect | undefined;

const texts = (c: SimpleCommand) => c.args.map((a) => a.text);
const has = (c: SimpleCommand, ...words: string[]) => c.args.some((a) => words.includes(a.text));
// Stryker disable next-line ArrayDeclaration: a made-up option name in the default list matches no argument
const operands = (c: SimpleCommand, withValue: readonly string[] = []) => parseFlags(c.args, { withValue }).operands.map((w) => w.text);

const SERVICE_READS = new Set([
  'status',
  'is-active',
  'is-enabled',
  'is-failed',
  'is-system-running',
  'list-units',
  'list-unit-files',
  'list-sockets',
  'list-timers',
  'list-jobs',
  'list-dependencies',
  'list-machines',
  'show',
  'cat',
  'help',
  'get-default',
  'show-environment',
]);
const SERVICE_POWER = new Set([
  'reboot',
  'poweroff',
  'halt',
  'kexec',
  'suspend',
  'hibernate',
  'hybrid-sleep',
  'rescue',
  'emergency',
  'soft-reboot',
  'isolate',
]);
const NETWORK_CHANGES = new Set([
  'add',
  'del',
  'delete',
  'change',
  'replace',
  'set',
  'flush',
  'append',
  'prepend',
  'exec',
  'attach',
  'detach',
  'save',
  'restore',
  'up',
  'down',
]);
const FIREWALL_READS =
  /^(?:-L|-S|-nL|-nvL|-vnL|-vL|-Ln|--list\S*|list|show|status|--state|--get-\S+|--query-\S+|-C|--check|verbose|numbered|-n|-v|-x|--line-numbers|-t|filter|nat|mangle|raw|security|INPUT|OUTPUT|FORWARD|PREROUTING|POSTROUTING|ruleset|tables|chains)$/;
const PACKAGE_READS = new Set([
  'list',
  'show',
  'search',
  'info',
  'policy',
  'madison',
  'depends',
  'rdepends',
  'history',
  'check-update',
  'repolist',
  'provides',
  'whatprovides',
  'query',
  'freeze',
  'outdated',
  'view',
  'ls',
  'why',
  'version',
  '--version',
  'help',
  'changelog',
  'showpkg',
  'stats',
  'check',
]);
const CLUSTER_READS = new Set([
  'ps',
  'logs',
  'inspect',
  'images',
  'get',
  'describe',
  'top',
  'stats',
  'version',
  'info',
  'events',
  'history',
  'port',
  'diff',
  'ls',
  'list',
  'status',
  'explain',
  'api-resources',
  'api-versions',
  'cluster-info',
  'auth',
  'search',
  'df',
  'volume',
  'network',
  'container',
  'image',
  'system',
  'node',
  'config',
  'rollout',
  'show',
  'get-values',
  'get-manifest',
  'template',
  'lint',
]);
const CLUSTER_SUBCOMMAND_READS = new Set([
  'ls',
  'list',
  'inspect',
  'df',
  'info',
  'history',
  'status',
  'view',
  'get-contexts',
  'current-context',
  'show',
  'values',
  'manifest',
  'top',
]);
const GIT_READS = new Set([
  'status',
  'log',
  'diff',
  'show',
  'rev-parse',
  'describe',
  'blame',
  'ls-files',
  'ls-tree',
  'shortlog',
  'grep',
  'cat-file',
  'reflog',
  'whatchanged',
  'version',
  '--version',
  'help',
]);

function serviceVerb(verb: string | undefined, unit: string): Effect | undefined {
  if (verb === undefined || SERVICE_READS.has(verb)) return undefined;
  if (SERVICE_POWER.has(verb))
    return effect('critical', `${verb === 'isolate' ? 'switches the system target' : 'restarts or stops the machine'} (${verb})`);
  if (verb === 'kill') return effect('high', `kills a service${unit ? ` (${unit})` : ''}`);
  return effect('high', `changes a service (${verb}${unit ? ` ${unit}` : ''})`);
}

/** Subcommand-style tools: the first operand decides read or change. */
function subcommand(c: SimpleCommand, reads: ReadonlySet<string>, what: string, withValue: readonly string[] = []): Effect | undefined {
  const [verb, next] = operands(c, withValue);
  if (verb === undefined || reads.has(verb)) {
    if (
      verb !== undefined &&
      ['volume', 'network', 'container', 'image', 'system', 'node', 'config', 'rollout', 'auth'].includes(verb) &&
      next !== undefined &&
      !CLUSTER_SUBCOMMAND_READS.has(next)
    )
      return effect('high', `changes ${what} (${verb} ${next})`);
    return effect('medium', `reads ${what}`);
  }
  return effect('high', `changes ${what} (${verb})`);
}

/** Programs that change services, the kernel, the network, accounts, packages, clusters or the machine. */
export const SYSTEM_EFFECTS: Readonly<Record<string, Detector>> = {
  systemctl: (c) => {
    const [verb, unit = ''] = operands(c, [
      'H',
      'host',
      'M',
      'machine',
      'p',
      'property',
      't',
      'type',
      'state',
      'n',
      'lines',
      'o',
      'output',
      's',
      'signal',
      'kill-whom',
    ]);
    return serviceVerb(verb, unit);
  },
  service: (c) => {
    if (has(c, '--status-all')) return undefined;
    // Stryker disable next-line StringLiteral: any stand-in for a missing unit that names no service gives the same verdict
    const [unit = '', verb] = operands(c);
    return serviceVerb(verb, unit);
  },
  journalctl: (c) =>
    c.args.some((a) => /^--(?:vacuum-size|vacuum-time|vacuum-files|rotate|flush|relinquish-var|setup-keys|sync)/.test(a.text))
      ? effect('high', 'changes the journal')
      : undefined,
  ip: (c) => {
    const words = operands(c, ['n', 'netns', 'f', 'family', 'b', 'batch', 'rc', 'rcvbuf']);
    if (c.args.some((a) => a.text === '-b' || a.text === '-batch' || a.text === '--batch'))
      return effect('high', 'runs a batch of ip commands');
    const change = words.find((w) => NETWORK_CHANGES.has(w));
    return change ? effect('high', `changes the network configuration (${change})`) : undefined;
  },
  ifconfig: (c) => (operands(c).length > 1 ? effect('high', 'changes a network interface') : undefined),
  route: (c) => (operands(c).some((w) => NETWORK_CHANGES.has(w)) ? effect('high', 'changes the routing table') : undefined),
  arp: (c) => (has(c, '-d', '-s', '-f', '--delete', '--set', '--file') ? effect('high', 'changes the ARP table') : undefined),
  sysctl: (c) =>
    c.args.some(
      (a) =>
        // `-p`/`-f` take their file attached as well (`sysctl -p/etc/sysctl.d/x.conf` loads it).
        /^(?:-w|-p\S*|-f\S*|--write|--load\S*|--system)$/.test(a.text) ||
        /^-[a-zA-Z]*[wp]$/.test(a.text) ||
        (!a.text.startsWith('-') && a.text.includes('=')),
    )
      ? effect('high', 'changes kernel settings')
      : undefined,
  mount: (c) => {
    const { operands: targets, values } = parseFlags(c.args, {
      withValue: ['t', 'types', 'o', 'options', 'O', 'test-opts', 'L', 'U', 'label', 'uuid', 'source', 'target'],
    });
    const changesMounts =
      targets.length > 0 ||
      values.has('o') ||
      values.has('options') ||
      has(c, '-a', '--all', '--bind', '--move', '--rbind', '--make-private', '--make-shared');
    return changesMounts ? effect('high', 'mounts or remounts a filesystem') : undefined;
  },
  umount: () => effect('high', 'unmounts a filesystem'),
  swapoff: () => effect('high', 'turns swap off'),
  swapon: (c) => (has(c, '--show', '-s', '--summary') ? undefined : effect('high', 'turns swap on')),
  date: (c) => {
    const { operands: words, flags } = parseFlags(c.args, {
      withValue: ['d', 'date', 'f', 'file', 'r', 'reference', 'set'],
      aliases: { s: 'set', set: 'set' },
    });
    return flags.has('set') || words.some((w) => !w.text.startsWith('+')) ? effect('high', 'sets the system clock') : undefined;
  },
  hostname: (c) => (operands(c).length > 0 || has(c, '-F', '--file', '-b', '--boot') ? effect('high', 'sets the host name') : undefined),
  hostnamectl: (c) =>
    (operands(c)[0] ?? '').startsWith('set-') || (operands(c)[0] === 'hostname' && operands(c).length > 1)
      ? effect('high', 'sets the host name')
      : undefined,
  timedatectl: (c) =>
    /^(?:set-|ntp-servers|revert)/.test(operands(c)[0] ?? '') ? effect('high', 'changes the clock or time zone') : undefined,
  localectl: (c) => ((operands(c)[0] ?? '').startsWith('set-') ? effect('high', 'changes the locale') : undefined),
  crontab: (c) =>
    has(c, '-l') ? undefined : has(c, '-r') ? effect('high', 'deletes the crontab') : effect('high', 'changes scheduled jobs'),
  at: (c) => (has(c, '-l') ? undefined : effect('high', 'schedules a command')),
  passwd: (c) => (has(c, '-S', '--status') ? undefined : effect('critical', 'changes a password (credentials)')),
  chage: (c) => (has(c, '-l', '--list') ? undefined : effect('critical', 'changes password ageing (credentials)')),
  iptables: (c) => (texts(c).every((w) => FIREWALL_READS.test(w)) ? undefined : effect('high', 'changes the firewall')),
  nft: (c) => (texts(c).every((w) => FIREWALL_READS.test(w)) ? undefined : effect('high', 'changes the firewall')),
  ufw: (c) => (texts(c).every((w) => FIREWALL_READS.test(w)) ? undefined : effect('high', 'changes the firewall')),
  'firewall-cmd': (c) => (texts(c).every((w) => FIREWALL_READS.test(w)) ? undefined : effect('high', 'changes the firewall')),
  dpkg: (c) =>
    c.args.every((a) => /^-(?:l|L|s|S|p|-list|-listfiles|-status|-search|-print-\S+|-get-selections|-audit|C)$|^[^-]/.test(a.text))
      ? undefined
      : effect('high', 'installs or removes packages'),
  rpm: (c) =>
    c.args.some((a) => /^-[a-zA-Z]*q|^--query|^-V|^--verify/.test(a.text)) ? undefined : effect('high', 'installs or removes packages'),
  apt: (c) => subcommand(c, PACKAGE_READS, 'packages'),
  'apt-get': (c) => subcommand(c, PACKAGE_READS, 'packages'),
  'apt-cache': () => undefined,
  yum: (c) => subcommand(c, PACKAGE_READS, 'packages'),
  dnf: (c) => subcommand(c, PACKAGE_READS, 'packages'),
  zypper: (c) => subcommand(c, PACKAGE_READS, 'packages'),
  apk: (c) => subcommand(c, PACKAGE_READS, 'packages'),
  snap: (c) => subcommand(c, PACKAGE_READS, 'packages'),
  pip: (c) => subcommand(c, PACKAGE_READS, 'Python packages'),
  pip3: (c) => subcommand(c, PACKAGE_READS, 'Python packages'),
  npm: (c) => subcommand(c, PACKAGE_READS, 'Node packages'),
  docker: (c) => subcommand(c, CLUSTER_READS, 'containers', ['H', 'host', 'context', 'config', 'l', 'log-level']),
  podman: (c) => subcommand(c, CLUSTER_READS, 'containers'),
  nerdctl: (c) => subcommand(c, CLUSTER_READS, 'containers'),
  crictl: (c) => subcommand(c, CLUSTER_READS, 'containers'),
  kubectl: (c) =>
    subcommand(c, CLUSTER_READS, 'the cluster', [
      'n',
      'namespace',
      'context',
      'kubeconfig',
      'cluster',
      'user',
      's',
      'server',
      'o',
      'output',
      'l',
      'selector',
    ]),
  oc: (c) => subcommand(c, CLUSTER_READS, 'the cluster', ['n', 'namespace', 'context', 'kubeconfig']),
  helm: (c) => subcommand(c, CLUSTER_READS, 'Helm releases', ['n', 'namespace', 'kube-context', 'kubeconfig']),
  git: (c) => {
    const [verb] = operands(c, ['C', 'c', 'git-dir', 'work-tree']);
    if (verb === undefined || GIT_READS.has(verb)) return undefined;
    // A bare `git stash` stashes (changes the work tree); bare branch, remote and tag only list.
    if (verb === 'stash') return has(c, 'list', 'show') ? undefined : effect('high', `changes the repository (${verb})`);
    if (verb === 'branch' || verb === 'remote' || verb === 'tag')
      return operands(c, ['C', 'c']).length <= 1 || has(c, '-v', '-vv', '-a', '-r', '--list', 'list', 'show')
        ? undefined
        : effect('high', `changes the repository (${verb})`);
    return effect('high', `changes the repository (${verb})`);
  },
  logrotate: (c) => (has(c, '-d', '--debug') ? undefined : effect('high', 'rotates (and may delete) logs')),
  tcpdump: (c) => {
    const { values } = parseFlags(c.args, {
      withValue: ['w', 'i', 'c', 's', 'r', 'C', 'G', 'W', 'F', 'z', 'Z', 'E', 'T', 'y', 'B', 'j', 'M', 'V'],
    });
    return values.get('w') ? changesAny('writes a capture to', [values.get('w')!]) : undefined;
  },
  fsck: (c) => (has(c, '-n', '-N') ? undefined : effect('high', 'repairs a filesystem')),
  e2fsck: (c) => (has(c, '-n') ? undefined : effect('high', 'repairs a filesystem')),
  xfs_repair: (c) => (has(c, '-n') ? undefined : effect('high', 'repairs a filesystem')),
  kill: (c) => (has(c, '-l', '-L', '--list', '--table', '-0') ? undefined : effect('high', 'kills processes')),
  renice: () => effect('medium', 'changes process priorities'),
  history: (c) =>
    c.args.some((a) => /^-[a-zA-Z]*[cdw]/.test(a.text)) ? effect('high', 'erases or rewrites the shell history') : undefined,
  nc: (c) =>
    c.args.some((a) => /^-[a-zA-Z]*[ec]$/.test(a.text)) ? effect('high', 'attaches a program to a network connection') : undefined,
  ncat: (c) =>
    c.args.some((a) => /^-[a-zA-Z]*[ec]$|^--(?:exec|sh-exec|lua-exec)/.test(a.text))
      ? effect('high', 'attaches a program to a network connection')
      : undefined,
  socat: (c) =>
    c.args.some((a) => /(?:^|[,!])\s*(?:exec|system):/i.test(a.text))
      ? effect('high', 'attaches a program to a network connection')
      : undefined,
  modprobe: (c) => (has(c, '-n', '--dry-run', '-c', '--showconfig') ? undefined : effect('high', 'loads or unloads kernel modules')),
  insmod: () => effect('high', 'loads a kernel module'),
  rmmod: () => effect('high', 'unloads a kernel module'),
  'update-grub': () => effect('critical', 'rewrites the boot configuration'),
};
