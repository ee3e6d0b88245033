import type { Risk, RiskAssessment } from '../../core/tools/index.ts';

/** Programs that only read: diagnostics people run first. */
const READ_ONLY = new Set(
  (
    'df du uptime free top htop ps pstree cat less more head tail grep egrep fgrep zgrep ls ll stat file wc sort uniq cut awk tr ' +
    'echo printf date hostname hostnamectl uname whoami id groups who w last lastlog env printenv which type whereis nproc lscpu ' +
    'lsblk lsusb lspci lsmod blkid findmnt mount vmstat iostat mpstat sar pidstat lsof ss netstat ip ifconfig route arp ping ' +
    'traceroute tracepath mtr dig nslookup host getent dmesg journalctl timedatectl localectl ulimit sysctl md5sum sha256sum ' +
    'getenforce sestatus test true false sleep watch pwd basename dirname realpath readlink diff cmp jq yq ' +
    'get-process get-service get-eventlog get-winevent get-childitem get-content get-item get-volume get-disk get-netipaddress ' +
    'get-nettcpconnection get-computerinfo get-hotfix test-connection test-netconnection resolve-dnsname select-string ' +
    'tasklist systeminfo ipconfig whoami.exe hostname.exe'
  ).split(' '),
);

/** Programs that end processes or the machine. */
const KILLS = new Set(['kill', 'pkill', 'killall', 'stop-process', 'taskkill', 'skill']);
const POWER = new Set(['reboot', 'shutdown', 'halt', 'poweroff', 'restart-computer', 'stop-computer']);
const DISK = new Set(['mkfs', 'dd', 'fdisk', 'parted', 'wipefs', 'sfdisk', 'format', 'clear-disk', 'format-volume', 'shred']);
const SERVICE_CHANGES = new Set([
  'restart',
  'stop',
  'kill',
  'disable',
  'mask',
  'start',
  'reload',
  'enable',
  'try-restart',
  'reload-or-restart',
]);
const SERVICE_READS = new Set([
  'status',
  'is-active',
  'is-enabled',
  'is-failed',
  'list-units',
  'list-unit-files',
  'show',
  'cat',
  'list-timers',
  'list-dependencies',
]);
/** Wrappers that run the next word as the command. */
const WRAPPERS = new Set(['sudo', 'doas', 'env', 'nice', 'ionice', 'nohup', 'time', 'command', 'exec', 'stdbuf']);
/** journalctl options that change the journal. */
const JOURNAL_WRITES = /^--(vacuum-size|vacuum-time|vacuum-files|rotate|flush|relinquish-var|setup-keys)/;
/** find actions that change files. */
const FIND_WRITES = new Set(['-delete', '-exec', '-execdir', '-ok', '-okdir', '-fprint', '-fprintf', '-fls']);

const RANK: Readonly<Record<Risk, number>> = { low: 0, medium: 1, high: 2, critical: 3 };

interface SegmentRisk {
  readonly level: Risk;
  readonly reason: string;
}

/** Splits a command line into simple commands at pipes, `;`, `&&`, `||`, `&` and newlines (quotes respected). */
function segments(command: string): string[][] {
  const result: string[][] = [[]];
  let word = '';
  let quote: string | undefined;
  const endWord = () => {
    if (word !== '') result[result.length - 1]!.push(word);
    word = '';
  };
  for (let i = 0; i < command.length; i += 1) {
    const char = command[i]!;
    if (quote) {
      if (char === quote) quote = undefined;
      else word += char;
    } else if (char === '"' || char === "'") {
      quote = char;
    } else if (/\s/.test(char) && char !== '\n') {
      endWord();
    } else if ('|;&\n'.includes(char)) {
      endWord();
      if (result[result.length - 1]!.length > 0) result.push([]);
    } else if (char === '>') {
      endWord();
      result[result.length - 1]!.push(command[i + 1] === '>' ? '>>' : '>');
      if (command[i + 1] === '>') i += 1;
    } else {
      word += char;
    }
  }
  endWord();
  return result.filter((words) => words.length > 0);
}

function programOf(words: readonly string[]): { program: string; args: string[] } {
  let index = 0;
  while (index < words.length) {
    const word = words[index]!;
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word) || WRAPPERS.has(word)) index += 1;
    else if (word.startsWith('-') && index > 0 && WRAPPERS.has(words[index - 1]!)) index += 1;
    else break;
  }
  const program = (words[index] ?? '').split('/').pop()!.toLowerCase();
  return { program, args: words.slice(index + 1) };
}

function scoreSegment(words: readonly string[]): SegmentRisk {
  const { program, args } = programOf(words);
  const text = [program, ...args].join(' ');
  const redirect = args.findIndex((a) => a === '>' || a === '>>');
  const target = redirect >= 0 ? args[redirect + 1] : undefined;
  if (target !== undefined && target !== '/dev/null') return { level: 'high', reason: `\`${text}\` writes to ${target}` };
  if (POWER.has(program)) return { level: 'critical', reason: `\`${text}\` restarts or stops the machine` };
  if (DISK.has(program) || program.startsWith('mkfs.')) return { level: 'critical', reason: `\`${text}\` writes to a disk or filesystem` };
  if (program === 'rm' || program === 'remove-item' || program === 'del') {
    const recursive = args.some((a) => /^-[a-zA-Z]*[rR]/.test(a) || a === '--recursive' || /^-recurse$/i.test(a));
    return recursive
      ? { level: 'critical', reason: `\`${text}\` deletes files recursively` }
      : { level: 'high', reason: `\`${text}\` deletes files` };
  }
  if (KILLS.has(program)) return { level: 'high', reason: `\`${text}\` kills processes` };
  if (program === 'systemctl' || program === 'service') {
    const verb = program === 'systemctl' ? args.find((a) => !a.startsWith('-')) : args[1];
    if (verb && SERVICE_CHANGES.has(verb))
      return { level: 'high', reason: `\`${text}\` ${verb === 'kill' ? 'kills' : 'changes'} a service (${verb})` };
    if (program === 'systemctl' && (verb === undefined || SERVICE_READS.has(verb)))
      return { level: 'low', reason: `\`${text}\` reads service state` };
    if (program === 'service' && verb === 'status') return { level: 'low', reason: `\`${text}\` reads service state` };
    return { level: 'medium', reason: `\`${text}\`: service command not known to be read-only` };
  }
  if (/^(restart|stop|start|suspend)-(service|vm|webapplication)$/.test(program))
    return { level: 'high', reason: `\`${text}\` changes a service` };
  if (program === 'journalctl' && args.some((a) => JOURNAL_WRITES.test(a)))
    return { level: 'high', reason: `\`${text}\` changes the journal` };
  if (program === 'find' && args.some((a) => FIND_WRITES.has(a)))
    return { level: 'high', reason: `\`${text}\` runs actions on the files it finds` };
  if (program === 'sed' && args.some((a) => /^-[a-zA-Z]*i/.test(a) || a.startsWith('--in-place')))
    return { level: 'high', reason: `\`${text}\` edits files in place` };
  if (program === 'tail' || program === 'top' || program === 'watch' || READ_ONLY.has(program))
    return { level: 'low', reason: `\`${program}\` is a read-only diagnostic` };
  return { level: 'medium', reason: `\`${program}\` is not a known read-only diagnostic` };
}

/**
 * The risk of a shell command from its words: read-only diagnostics (df -h, uptime, journalctl
 * reads, systemctl status) are low; restarts, kills and deletes high; power, disk and recursive
 * deletes critical; anything unknown medium. The highest segment of a pipeline or list decides.
 * This scores; it never allows or blocks (the command validator does that).
 */
export function assessCommandRisk(command: string): RiskAssessment {
  const scored = segments(command).map(scoreSegment);
  if (scored.length === 0) return { level: 'medium', reason: 'empty command' };
  const worst = scored.reduce((a, b) => (RANK[b.level] > RANK[a.level] ? b : a));
  if (worst.level === 'low') {
    const programs = [...new Set(scored.map((s) => /`([^`]+)`/.exec(s.reason)?.[1] ?? ''))].join(', ');
    return { level: 'low', reason: `read-only diagnostics: ${programs}` };
  }
  return { level: worst.level, reason: worst.reason };
}
