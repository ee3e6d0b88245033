import { parseFlags } from './flags.ts';
import { hasScriptOperand, INTERPRETER_RULES } from './linux-interpreter-rules.ts';
import {
  isBlockDevice,
  isCriticalFile,
  isHistoryOrLoginRecord,
  isSystemFile,
  mayExpandToProtectedPath,
  normalisePath as normalise,
  resolveAgainst,
} from './linux-paths.ts';
import { INTERPRETERS, programFamily, SHELLS } from './linux-programs.ts';
import { shellCommandIndex } from './linux-wrappers.ts';
import type { CommandRule, SimpleCommand, Word } from './types.ts';
import { staticHeredoc } from './wrapped-command.ts';

const OUTPUT_REDIRECTS = new Set(['>', '>>', '>|', '&>', '&>>', '<>', '>&']);

function writtenPaths(command: SimpleCommand): Word[] {
  return command.redirects.filter((r) => OUTPUT_REDIRECTS.has(r.operator) && !/^\d+$|^-$/.test(r.target.text)).map((r) => r.target);
}

/** True when the word, resolved against a known working directory and expanded, can be a protected path. */
function protectedOperand(command: SimpleCommand, word: Word): boolean {
  return word.static && mayExpandToProtectedPath(resolveAgainst(command.cwd, word.text));
}

/**
 * True when a word only known at run time is still known to be harmless: a path under `$TMPDIR` (or
 * `${TMPDIR:-/tmp}`) that is not protected even when TMPDIR is empty, or a directory made by `mktemp`
 * on this line.
 */
function knownTemporary(command: SimpleCommand, word: Word): boolean {
  const text = word.text.replace(/"/g, '');
  if (/^\$\(\s*mktemp\b[^()`$;|&]*\)$/.test(text)) return true;
  const variable = /^\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^$`*?[{}]*))?\})(\/[^$`*?[{]*)?$/.exec(text);
  if (!variable) return false;
  const [, plainName, bracedName, fallback, rest] = variable;
  const name = plainName ?? bracedName;
  if (fallback === undefined && command.temporaryVariables?.has(name!)) return rest === undefined || !rest.split('/').includes('..');
  // `${TMPDIR:-/tmp}/build` is TMPDIR's value or the fallback, then the rest: both must be harmless.
  const harmlessFallback = fallback === undefined || !mayExpandToProtectedPath(resolveAgainst(command.cwd, fallback + rest));
  return name === 'TMPDIR' && rest !== undefined && /\/[^/.]/.test(rest) && !mayExpandToProtectedPath(rest) && harmlessFallback;
}

/** Commands that write nothing, so `CMD > file` only truncates the file. */
const WRITES_NOTHING = new Set(['', ':', 'true', 'false']);

/**
 * `/` or a directory whose files are the operating system (`/etc`, `/usr/lib`, `/[e]tc`): deleting
 * every file under it breaks the host. Not `/var/log` or a home: `find /var/log -name "*.gz" -exec rm {} \;` is routine.
 */
function holdsSystemFiles(path: string): boolean {
  return normalise(path) === '/' || isSystemFile(`${path}/x`);
}

function is(command: SimpleCommand, ...programs: string[]): boolean {
  return programs.includes(command.program);
}

const RM = {
  aliases: {
    r: 'recursive',
    R: 'recursive',
    recursive: 'recursive',
    f: 'force',
    force: 'force',
    'no-preserve-root': 'no-preserve-root',
    'preserve-root': 'preserve-root',
  },
};

export const DEFAULT_LINUX_BLOCKLIST: readonly CommandRule[] = [
  {
    id: 'dynamic-command-name',
    category: 'obfuscation',
    description: 'The command word is computed at run time (variable, substitution, glob or brace expansion), so it cannot be checked.',
    match: (c) => (c.nameIsStatic ? undefined : `the command name "${c.name}" is only known at run time`),
  },
  {
    id: 'pipe-to-shell',
    category: 'remote-code',
    description: 'Piping or redirecting anything into a shell, or a program into an interpreter (curl … | sh, sh < file, python3 -).',
    match: (c) => {
      // A static heredoc is code written on this line: shells parse it and interpreters check it like -c code.
      if (!c.input || staticHeredoc(c) !== undefined) return undefined;
      // `… | sh -c 'script'`: the script is the code (checked on its own) and its commands inherit the input.
      if (SHELLS.has(c.program) && shellCommandIndex(c.args) < 0) return `${describeInput(c)} is fed into the shell ${c.program}`;
      if (
        (c.program === 'source' || c.program === '.') &&
        c.args.some((a) => /^(?:-|\/dev\/stdin|\/dev\/fd\/0|\/proc\/self\/fd\/0)$/.test(a.text))
      )
        return `${describeInput(c)} is run as shell code by ${c.program} ${c.args[0]?.text ?? ''}`;
      if (INTERPRETERS.has(programFamily(c.program)) && (!hasScriptOperand(c) || c.args.some((a) => a.text === '-'))) {
        return `${describeInput(c)} is fed into ${c.program} as a program`;
      }
      return undefined;
    },
  },
  {
    id: 'reverse-shell',
    category: 'reverse-shell',
    description: 'Connecting a shell to the network: /dev/tcp redirections, nc -e / ncat --exec, socat exec:.',
    match: (c) => {
      const socket = c.redirects.find((r) => /^\/dev\/(?:tcp|udp)\//.test(r.target.text));
      if (socket) return `a redirection connects to ${socket.target.text}`;
      const argument = c.args.find((a) => /^\/dev\/(?:tcp|udp)\//.test(a.text));
      if (argument && !is(c, 'echo', 'printf')) return `${c.program} opens ${argument.text}`;
      if (/^(?:nc|ncat|netcat|nc\.traditional|nc\.openbsd|busybox-nc)$/.test(c.program)) {
        const exec = c.args.find((a) => /^-[a-zA-Z]*[ec]$|^--(?:exec|sh-exec|lua-exec)\b/.test(a.text));
        if (exec) return `${c.program} ${exec.text} attaches a program to a network connection`;
      }
      if (is(c, 'socat') && c.args.some((a) => /(?:^|[,!])\s*(?:exec|system):/i.test(a.text)))
        return 'socat runs a program on a network connection';
      if (is(c, 'telnet', 'openssl') && c.input === 'pipe' && c.args.some((a) => a.text === 's_client' || !a.text.startsWith('-')))
        return undefined;
      if (is(c, 'xterm') && c.args.some((a) => a.text === '-display')) return 'xterm -display opens a remote terminal';
      return undefined;
    },
  },
  {
    id: 'script-from-substitution',
    category: 'remote-code',
    description:
      'A shell or interpreter runs a script from a process substitution, /dev/stdin or a computed path (bash <(curl …), source <(…)).',
    match: (c) => {
      const runsScript = SHELLS.has(c.program) || INTERPRETERS.has(programFamily(c.program)) || is(c, 'source', '.');
      if (!runsScript) return undefined;
      const bad = c.args.find((a) => a.processSubstitution || /^\/dev\/(?:stdin|fd\/\d+|tcp\/|udp\/)|^\/proc\/self\/fd\//.test(a.text));
      if (bad) return `${c.program} runs code from ${bad.text}`;
      if (is(c, 'source', '.') && c.args[0] && !c.args[0].static) return `${c.program} loads a script whose path is computed at run time`;
      return undefined;
    },
  },
  {
    id: 'interactive-shell',
    category: 'shell-escape',
    description: 'Starts a nested interactive shell (bash, sudo -s, su, find -exec sh), which would hide later commands from review.',
    match: (c) => {
      if (!SHELLS.has(c.program) || c.input) return undefined;
      if (c.args.some((a) => /^--(?:version|help)$/.test(a.text))) return undefined;
      if (c.args.some((a) => !a.static || !a.text.startsWith('-') || /^-[a-zA-Z]*c[a-zA-Z]*$/.test(a.text))) return undefined;
      return `${c.via.length > 0 ? `${c.via.join(' → ')} starts` : 'starts'} an interactive ${c.program} shell`;
    },
  },
  ...INTERPRETER_RULES,
  {
    id: 'fork-bomb',
    category: 'fork-bomb',
    description: 'A shell function that starts itself in a pipeline or in the background (:(){ :|:& };:).',
    match: (c) => (c.recursiveSpawn ? `the function ${c.program} spawns copies of itself` : undefined),
  },
  {
    id: 'truncate-system-file',
    category: 'critical-file',
    description:
      'Emptying or zeroing a file of the operating system (/etc, /boot, /usr, /lib …): a bare `> /etc/fstab`, `: > file`, `truncate -s 0`, `cp /dev/null file`, `dd if=/dev/zero of=file`.',
    match: (c) => {
      const empties = WRITES_NOTHING.has(c.program) || (is(c, 'cat') && c.args.every((a) => a.text === '/dev/null'));
      if (empties) {
        const target = c.redirects.find(
          (r) =>
            (r.operator === '>' || r.operator === '>|' || r.operator === '&>') &&
            r.target.static &&
            isSystemFile(resolveAgainst(c.cwd, r.target.text)),
        );
        if (target) return `the redirection empties ${target.target.text}`;
      }
      if (is(c, 'truncate')) {
        const { operands, values } = parseFlags(c.args, {
          aliases: { s: 'size', size: 'size' },
          withValue: ['size', 'r', 'reference', 'o'],
        });
        const size = values.get('size')?.text ?? '';
        const target = operands.find((o) => o.static && isSystemFile(resolveAgainst(c.cwd, o.text)));
        if (target && /^(?:0+[KMGkmg]?|<.*|\/.*|%.*|-.*)$/.test(size)) return `truncate empties or shrinks ${target.text}`;
      }
      if (is(c, 'cp', 'dd', 'install')) {
        const from = c.args.find((a) => /^(?:if=)?\/dev\/(?:null|zero|u?random)$/.test(a.text));
        const to = c.args.find((a) => a.static && isSystemFile(resolveAgainst(c.cwd, a.text.replace(/^of=/, ''))));
        if (from && to) return `${c.program} ${from.text.endsWith('null') ? 'empties' : 'overwrites'} ${to.text}`;
      }
      return undefined;
    },
  },
  {
    id: 'recursive-delete-system-path',
    category: 'destructive-delete',
    description:
      'rm of /, a system directory, a home directory or a glob covering one of them; shred or unlink of such a glob (find -exec runs them per file); recursive rm of a path computed at run time.',
    match: (c) => {
      // shred and unlink take files one by one: a glob over a protected directory destroys its files
      // (`find /etc -exec unlink {} \;` reaches here as `unlink /etc/*`: find runs it once per file).
      if (is(c, 'shred', 'unlink')) {
        const files = c.args.find((a) => /[*?]/.test(a.text) && protectedOperand(c, a));
        return files ? `${c.program} would destroy the files of ${resolveAgainst(c.cwd, files.text)}` : undefined;
      }
      if (!is(c, 'rm')) return undefined;
      const { flags, operands } = parseFlags(c.args, RM);
      if (flags.has('no-preserve-root')) return 'rm --no-preserve-root removes the root file system';
      // Without -r, rm cannot remove a directory, so only globs covering one (`/etc/*`) are dangerous.
      const recursive = flags.has('recursive');
      const target = operands.find((o) => protectedOperand(c, o) && (recursive || /[*?]/.test(o.text)));
      if (target) return `rm would delete ${resolveAgainst(c.cwd, target.text)}`;
      if (recursive) {
        const dynamic = operands.find((o) => !o.static && !knownTemporary(c, o));
        if (dynamic) return `recursive rm of ${dynamic.text}, which is only known at run time`;
        if (c.argsFromInput) return 'recursive rm of paths read from standard input';
      }
      return undefined;
    },
  },
  {
    id: 'find-delete-system-path',
    category: 'destructive-delete',
    description: 'find -delete starting at /, a system directory or a home directory.',
    match: (c) => {
      if (!is(c, 'find') || !c.args.some((a) => a.text === '-delete')) return undefined;
      const start = c.args.find((a) => protectedOperand(c, a) || (!a.static && !a.text.startsWith('-')));
      return start ? `find -delete would delete everything under ${start.text}` : undefined;
    },
  },
  {
    id: 'find-exec-delete-system-path',
    category: 'destructive-delete',
    description: 'find -exec rm, unlink or shred from / or a directory of system files: a delete run once for every file under it.',
    match: (c) => {
      if (!is(c, 'rm', 'unlink', 'shred') || !c.via.some((wrapper) => wrapper.startsWith('find -'))) return undefined;
      // The find wrapper puts each start point where `{}` was; find runs the command for every file below
      // it. A start known only in part (`/etc/$dir`) is still under the system directory.
      const start = c.args.find((a) => !a.text.startsWith('-') && holdsSystemFiles(resolveAgainst(c.cwd, a.text)));
      return start ? `${c.program} runs on every file under ${resolveAgainst(c.cwd, start.text)}` : undefined;
    },
  },
  {
    id: 'move-system-path',
    category: 'destructive-delete',
    description: 'mv of /, a system directory or a home directory.',
    match: (c) => {
      if (!is(c, 'mv')) return undefined;
      const { operands, values } = parseFlags(c.args, {
        aliases: { t: 'target-directory', 'target-directory': 'target-directory' },
        withValue: ['target-directory', 'S', 'suffix'],
      });
      const sources = values.has('target-directory') ? operands : operands.slice(0, -1);
      const target = sources.find((o) => protectedOperand(c, o));
      if (target) return `mv would move ${resolveAgainst(c.cwd, target.text)} away`;
      const destination = values.get('target-directory') ?? (operands.length > 1 ? operands[operands.length - 1] : undefined);
      if (destination?.static && /^\/dev\/(?:null|zero|full|u?random)$/.test(normalise(destination.text)))
        return `mv onto ${destination.text} replaces the device (and loses what was moved)`;
      return undefined;
    },
  },
  {
    id: 'disk-format',
    category: 'disk-destruction',
    description: 'Creating file systems or swap (mkfs*, mke2fs, mkswap), wiping signatures, discarding or destroying volumes.',
    match: (c) => {
      if (/^(?:mkfs(?:\..+)?|mke2fs|mkswap|mkdosfs|mkntfs|mkexfatfs)$/.test(c.program)) {
        // On a regular image file (`mkfs.ext4 disk.img`) it only builds an image; devices and computed targets are blocked.
        const target = c.args.find((a) => !a.static || /^\/dev\//.test(normalise(resolveAgainst(c.cwd, a.text))));
        const operand = c.args.filter((a) => !a.text.startsWith('-')).at(-1);
        if (target || !operand || c.argsFromInput) return `${c.program} destroys the data on ${target?.text ?? 'its target'}`;
      }
      if (/^(?:blkdiscard|pvremove|vgremove|lvremove)$/.test(c.program)) return `${c.program} destroys the data on its target`;
      if (is(c, 'wipefs') && parseFlags(c.args, { aliases: { a: 'all', all: 'all', o: 'offset', offset: 'offset' } }).flags.has('all'))
        return 'wipefs -a erases file system signatures';
      if (is(c, 'wipefs') && c.args.some((a) => a.text === '-o' || a.text.startsWith('--offset'))) return 'wipefs -o erases a signature';
      if (is(c, 'zpool', 'zfs') && c.args[0]?.text === 'destroy') return `${c.program} destroy removes the pool or data set`;
      if (is(c, 'mdadm') && c.args.some((a) => a.text === '--zero-superblock')) return 'mdadm --zero-superblock destroys the RAID metadata';
      if (is(c, 'fdisk', 'sfdisk', 'cfdisk', 'gdisk', 'sgdisk', 'parted')) {
        // parted's `-s` is --script (it runs the verbs without asking), not sfdisk's --show-size.
        const listing = is(c, 'parted')
          ? /^(?:-l|--list|print|-v|--version|--help|-h)$/
          : /^(?:-l|--list|-d|--dump|-p|--print|print|-s|--show-size|--verify|-V|--version|--help|-h)$/;
        const changes =
          is(c, 'parted') && c.args.some((a) => /^(?:mklabel|mktable|mkpart|rm|resizepart|rescue|name|set|toggle)$/.test(a.text));
        const readOnly = !changes && c.args.some((a) => listing.test(a.text));
        const device = c.args.find((a) => isBlockDevice(a.text));
        if (device && !readOnly) return `${c.program} would rewrite the partition table of ${device.text}`;
      }
      if (is(c, 'shred')) {
        const device = c.args.find((a) => isBlockDevice(a.text));
        if (device) return `shred would overwrite the device ${device.text}`;
      }
      return undefined;
    },
  },
  {
    id: 'write-to-device',
    category: 'disk-destruction',
    description: 'Writing to a block device or kernel memory (dd of=/dev/sda, > /dev/nvme0n1, tee /dev/sda, cp x /dev/sda).',
    match: (c) => {
      const redirect = writtenPaths(c).find((t) => isBlockDevice(t.text));
      if (redirect) return `output is written to the device ${redirect.text}`;
      if (is(c, 'dd')) {
        const output = c.args.find((a) => a.text.startsWith('of='));
        if (output && (isBlockDevice(output.text.slice(3)) || !output.static)) return `dd writes to ${output.text.slice(3)}`;
      }
      if (is(c, 'tee', 'cp', 'install', 'cat', 'pv', 'ddrescue')) {
        const { operands } = parseFlags(c.args);
        const targets = is(c, 'tee') ? operands : operands.slice(-1);
        const device = targets.find((o) => isBlockDevice(o.text));
        if (device) return `${c.program} writes to the device ${device.text}`;
      }
      return undefined;
    },
  },
  {
    id: 'system-power',
    category: 'system-power',
    description: 'Shutting down, rebooting or halting the host, or switching it to rescue mode.',
    match: (c) => {
      if (is(c, 'shutdown') && !c.args.some((a) => a.text === '-c' || a.text === '--help')) return 'shutdown stops the host';
      if (is(c, 'reboot', 'halt', 'poweroff', 'kexec')) return `${c.program} stops the host`;
      if (is(c, 'init', 'telinit') && /^[0156sS]$/.test(c.args[0]?.text ?? ''))
        return `${c.program} ${c.args[0]!.text} changes the run level`;
      if (is(c, 'systemctl', 'loginctl')) {
        const verb = c.args.find((a) => !a.text.startsWith('-'));
        if (verb && /^(?:poweroff|reboot|halt|kexec|emergency|rescue|suspend|hibernate|hybrid-sleep|soft-reboot)$/.test(verb.text))
          return `systemctl ${verb.text} stops the host`;
        if (
          verb?.text === 'isolate' &&
          c.args.some((a) => /^(?:rescue|emergency|poweroff|reboot|halt|runlevel[016])(?:\.target)?$/.test(a.text))
        )
          return 'systemctl isolate to a stopping target';
      }
      const sysrq = writtenPaths(c).find((t) => /^\/proc\/sys(?:rq-trigger|\/kernel\/sysrq)$/.test(t.text));
      if (sysrq) return `writing ${sysrq.text} can reboot or crash the host`;
      return undefined;
    },
  },
  {
    id: 'kill-init-or-all',
    category: 'process-kill',
    description: 'Killing PID 1, every process (kill -9 -1, killall5) or the SSH daemon.',
    match: (c) => {
      if (is(c, 'killall5')) return 'killall5 kills every process';
      if (is(c, 'kill')) {
        let index = 0;
        const first = c.args[0]?.text ?? '';
        if (first === '-s' || first === '-n' || first === '--signal') index = 2;
        else if (/^-(?:[A-Za-z]+|\d+)$/.test(first) && c.args.length > 1) index = 1;
        if (c.args[index]?.text === '--') index++;
        const victim = c.args.slice(index).find((a) => /^-?1$/.test(a.text));
        if (victim) return victim.text === '1' ? 'kill targets PID 1 (init)' : 'kill -1 targets every process';
      }
      if (is(c, 'pkill', 'killall') && c.args.some((a) => /^(?:init|systemd|sshd|-1)$/.test(a.text)))
        return `${c.program} would kill init or sshd`;
      return undefined;
    },
  },
  {
    id: 'crontab-remove',
    category: 'destructive-delete',
    description: 'crontab -r deletes every scheduled job of the user without asking.',
    match: (c) =>
      is(c, 'crontab') && parseFlags(c.args, { withValue: ['u'] }).flags.has('r') ? 'crontab -r deletes all cron jobs' : undefined,
  },
  {
    id: 'firewall-flush',
    category: 'firewall',
    description: 'Flushing or disabling the firewall, or setting a default DROP policy (iptables -F, nft flush ruleset, ufw disable).',
    match: (c) => {
      if (/^(?:ip6?tables(?:-legacy|-nft)?|ebtables|arptables)$/.test(c.program)) {
        const { flags } = parseFlags(c.args, {
          aliases: { F: 'flush', flush: 'flush', X: 'delete-chain', 'delete-chain': 'delete-chain', P: 'policy', policy: 'policy' },
        });
        if (flags.has('flush')) return `${c.program} -F removes every firewall rule`;
        if (flags.has('delete-chain')) return `${c.program} -X deletes firewall chains`;
        if (flags.has('policy') && c.args.some((a) => a.text === 'DROP' || a.text === 'REJECT'))
          return `${c.program} -P … DROP can lock everyone out`;
      }
      if (is(c, 'nft') && /\bflush\s+ruleset\b|\bdelete\s+table\b/.test(c.args.map((a) => a.text).join(' ')))
        return 'nft removes the firewall rule set';
      if (is(c, 'ufw') && /^(?:disable|reset)$/.test(c.args.find((a) => !a.text.startsWith('-'))?.text ?? ''))
        return 'ufw disable/reset turns the firewall off';
      return undefined;
    },
  },
  {
    id: 'critical-file-write',
    category: 'critical-file',
    description:
      'Writing, deleting or changing /etc/passwd, /etc/shadow, /etc/sudoers(.d), PAM, ld.so.preload or authorized_keys; removing passwords or creating a second root.',
    match: (c) => {
      const redirect = writtenPaths(c).find((t) => isCriticalFile(resolveAgainst(c.cwd, t.text)));
      if (redirect) return `output is written to ${redirect.text}`;
      if (
        is(
          c,
          'tee',
          'rm',
          'truncate',
          'chmod',
          'chown',
          'chgrp',
          'chattr',
          'shred',
          'sudoedit',
          'setfacl',
          'unlink',
          'vipw',
          'vigr',
          'visudo',
          'nano',
          'vi',
          'vim',
          'emacs',
        )
      ) {
        const target = c.args.find(
          (a) => isCriticalFile(resolveAgainst(c.cwd, a.text)) || (is(c, 'visudo', 'vipw', 'vigr') && a.text !== '-c'),
        );
        if (target && !(is(c, 'visudo') && c.args.some((a) => a.text === '-c' || a.text === '--check')))
          return `${c.program} changes ${target.text}`;
      }
      if (is(c, 'cp', 'mv', 'install', 'ln', 'rsync', 'scp')) {
        const { operands } = parseFlags(c.args, {
          withValue: ['t', 'target-directory', 'S', 'suffix', 'm', 'mode', 'o', 'owner', 'g', 'group'],
        });
        const destination = operands[operands.length - 1];
        if (destination && operands.length > 1 && isCriticalFile(resolveAgainst(c.cwd, destination.text)))
          return `${c.program} overwrites ${destination.text}`;
        if (is(c, 'mv') && operands.some((o) => isCriticalFile(resolveAgainst(c.cwd, o.text))))
          return `mv moves ${operands.find((o) => isCriticalFile(resolveAgainst(c.cwd, o.text)))!.text} away`;
      }
      if (is(c, 'sed', 'perl') && c.args.some((a) => /^-[a-zA-Z]*i/.test(a.text) || a.text.startsWith('--in-place'))) {
        const target = c.args.find((a) => isCriticalFile(resolveAgainst(c.cwd, a.text)));
        if (target) return `${c.program} -i edits ${target.text}`;
      }
      if (is(c, 'dd')) {
        const output = c.args.find((a) => a.text.startsWith('of=') && isCriticalFile(resolveAgainst(c.cwd, a.text.slice(3))));
        if (output) return `dd overwrites ${output.text.slice(3)}`;
      }
      if (is(c, 'passwd') && parseFlags(c.args, { aliases: { d: 'delete', delete: 'delete' } }).flags.has('delete'))
        return 'passwd -d removes the password';
      if (is(c, 'useradd', 'usermod', 'adduser')) {
        const { flags, values } = parseFlags(c.args, {
          aliases: { o: 'non-unique', 'non-unique': 'non-unique', u: 'uid', uid: 'uid', G: 'groups', groups: 'groups' },
          withValue: ['uid', 'groups', 'g', 'gid', 'd', 's', 'c', 'e', 'f', 'p', 'k', 'K', 'home', 'shell'],
        });
        if (flags.has('non-unique') || values.get('uid')?.text === '0') return `${c.program} creates a second account with UID 0`;
      }
      return undefined;
    },
  },
  {
    id: 'permissions-system-path',
    category: 'permissions',
    description:
      'chmod/chown/chgrp/setfacl on /, system or home directories (chmod -R 777 /, chown -R x /), or setuid on shells and interpreters.',
    match: (c) => {
      if (!is(c, 'chmod', 'chown', 'chgrp', 'setfacl', 'chattr')) return undefined;
      const { operands } = parseFlags(c.args, { withValue: ['reference'] });
      const target = operands.slice(is(c, 'setfacl') ? 0 : 1).find((o) => protectedOperand(c, o));
      if (target) return `${c.program} changes permissions or owner of ${target.text}`;
      if (is(c, 'chmod')) {
        const mode = operands[0]?.text ?? '';
        const setuid = /^[ugoa]*[+=][rwxXt]*s|^[2-7]\d{3}$/.test(mode);
        const binary = operands.slice(1).find((o) => {
          const base = o.text.slice(o.text.lastIndexOf('/') + 1);
          return (
            SHELLS.has(base) ||
            INTERPRETERS.has(programFamily(base)) ||
            /^(?:find|vim?|less|more|nmap|cp|awk|env|tar|zip|nano|tee|dd)$/.test(base)
          );
        });
        if (setuid && binary) return `chmod ${mode} makes ${binary.text} run as its owner (a root shell)`;
      }
      return undefined;
    },
  },
  {
    id: 'history-tampering',
    category: 'defense-evasion',
    description:
      'Clearing or disabling shell history, or wiping login records (history -c, unset HISTFILE, HISTSIZE=0, > ~/.bash_history, rm /var/log/wtmp).',
    match: (c) => {
      if (is(c, 'history') && c.args.some((a) => /^-[a-zA-Z]*[cdw]/.test(a.text))) return 'history -c/-d/-w rewrites the shell history';
      if (is(c, 'set') && c.args.some((a, i) => a.text === '+o' && c.args[i + 1]?.text === 'history'))
        return 'set +o history turns history off';
      if (is(c, 'unset') && c.args.some((a) => /^HIST(?:FILE|SIZE|FILESIZE)$/.test(a.text))) return 'unset HISTFILE turns history off';
      const assignment = c.assignments.find(
        (a) =>
          (a.name === 'HISTFILE' && (a.value.text === '' || a.value.text === '/dev/null')) ||
          (/^HIST(?:FILE)?SIZE$/.test(a.name) && a.value.text === '0') ||
          (a.name === 'HISTIGNORE' && a.value.text === '*'),
      );
      if (assignment) return `${assignment.name}=${assignment.value.text} turns history off`;
      const redirect = writtenPaths(c).find((t) => isHistoryOrLoginRecord(t.text));
      if (redirect) return `output overwrites ${redirect.text}`;
      if (is(c, 'rm', 'shred', 'truncate', 'ln', 'unlink', 'cp', 'mv', 'utmpdump')) {
        const target = c.args.find((a) => isHistoryOrLoginRecord(a.text));
        if (target) return `${c.program} wipes ${target.text}`;
      }
      return undefined;
    },
  },
  {
    id: 'disable-auditing',
    category: 'defense-evasion',
    description: 'Stopping or disabling auditd, syslog, journald, the firewall service, SELinux or AppArmor.',
    match: (c) => {
      const services =
        /^(?:auditd|rsyslog|syslog|syslog-ng|systemd-journald|journald|firewalld|apparmor|falcon-sensor|osqueryd|wazuh-agent|ossec|auditbeat|sysmon)(?:\.service)?$/;
      if (is(c, 'auditctl') && c.args.some((a, i) => a.text === '-D' || (a.text === '-e' && c.args[i + 1]?.text === '0')))
        return 'auditctl removes audit rules or disables auditing';
      if (is(c, 'systemctl')) {
        const verb = c.args.find((a) => !a.text.startsWith('-'))?.text;
        const unit = c.args.find((a) => services.test(a.text));
        if (verb && /^(?:stop|disable|mask|kill)$/.test(verb) && unit)
          return `systemctl ${verb} ${unit.text} turns auditing or protection off`;
      }
      if (is(c, 'service') && services.test(c.args[0]?.text ?? '') && /^(?:stop)$/.test(c.args[1]?.text ?? ''))
        return `service ${c.args[0]!.text} stop turns auditing off`;
      if (is(c, 'setenforce') && /^(?:0|permissive)$/i.test(c.args[0]?.text ?? '')) return 'setenforce 0 turns SELinux enforcement off';
      if (is(c, 'aa-teardown')) return 'aa-teardown unloads AppArmor';
      return undefined;
    },
  },
];

function describeInput(c: SimpleCommand): string {
  switch (c.input) {
    case 'pipe':
      return 'piped output';
    case 'file':
      return 'a file';
    case 'heredoc':
      return 'a heredoc';
    case 'herestring':
      return 'a here-string';
    default:
      return 'input';
  }
}
