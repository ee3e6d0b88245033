/** Top-level and system directories whose recursive removal, move or permission change breaks the host. */
const SYSTEM_DIRECTORIES = new Set([
  '/',
  '/bin',
  '/boot',
  '/dev',
  '/etc',
  '/home',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/media',
  '/mnt',
  '/opt',
  '/proc',
  '/root',
  '/run',
  '/sbin',
  '/snap',
  '/srv',
  '/sys',
  '/usr',
  '/usr/bin',
  '/usr/lib',
  '/usr/lib64',
  '/usr/local',
  '/usr/sbin',
  '/usr/share',
  '/var',
  '/var/lib',
  '/var/log',
  '/etc/ssh',
  '/etc/systemd',
  '/boot/efi',
]);

/** Lexically normalises a path: `//etc/./x/..//` → `/etc`. Keeps a leading `~`. */
export function normalisePath(path: string): string {
  const absolute = path.startsWith('/');
  const parts: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.length > 0 && parts[parts.length - 1] !== '..') parts.pop();
      else if (!absolute) parts.push('..');
      continue;
    }
    parts.push(part);
  }
  const joined = parts.join('/');
  return absolute ? `/${joined}` : joined || '.';
}

/**
 * True for `/`, system directories, home directories, and globs that cover all of one of them
 * (`/*`, `/etc/*`, `~/.*`, `/{,.}*`). `./build`, `/var/log/nginx/old` and `/tmp/x` are not protected.
 */
export function isProtectedPath(path: string): boolean {
  if (path === '') return false;
  let target = path;
  // A trailing all-covering glob: `dir/*`, `dir/.*`, `dir/{,.}*`, `dir/**`.
  const glob = /\/(?:\.?\*+|\{,?\.?,?\}\*|\*\*\/\*)$/.exec(target);
  if (glob) target = target.slice(0, glob.index) || '/';
  else if (target === '*' || target === '.*') return false;
  if (target === '~' || target.startsWith('~/') || /^~[\w.-]*\/?$/.test(target)) {
    const rest = normalisePath(`/${target.replace(/^~[\w.-]*/, '')}`);
    return rest === '/' || glob !== null;
  }
  if (!target.startsWith('/')) return false;
  const normal = normalisePath(target);
  if (SYSTEM_DIRECTORIES.has(normal)) return true;
  // `/home/alice` and `/root`-like direct homes.
  return /^\/home\/[^/]+$/.test(normal);
}

/** Block devices and kernel memory: writing them destroys data. */
const DEVICE =
  /^\/dev\/(?:sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|dm-\d|md\d|loop\d|sr\d|disk\/|mapper\/|root$|mem$|kmem$|port$|nbd\d|zram\d|rbd\d|bcache\d)/;

export function isBlockDevice(path: string): boolean {
  return DEVICE.test(normalisePath(path));
}

/** Files that hold accounts, passwords, privileges and login keys. */
const CRITICAL_FILE =
  /^(?:\/etc\/(?:passwd|shadow|group|gshadow|sudoers|sudoers\.d(?:\/.*)?|pam\.d\/.*|security\/.*|ld\.so\.preload|login\.defs)-?|(?:~|\/root|\/home\/[^/]+)\/\.ssh\/authorized_keys2?)$/;

export function isCriticalFile(path: string): boolean {
  if (path.startsWith('~')) return CRITICAL_FILE.test(path.replace(/\/+/g, '/'));
  return CRITICAL_FILE.test(normalisePath(path));
}

/** Shell history and login records: wiping them hides what was done. */
const HISTORY_FILE =
  /(?:^|\/)\.(?:bash|zsh|sh|ash|python|mysql|psql|node_repl)_history$|^\/var\/log\/(?:wtmp|btmp|lastlog|utmp|auth\.log|secure|audit(?:\/.*)?)$|^\/var\/run\/utmp$/;

export function isHistoryOrLoginRecord(path: string): boolean {
  return HISTORY_FILE.test(normalisePath(path));
}

/** Resolves a relative path against a known working directory (`*` in `/` → `/*`); unchanged otherwise. */
export function resolveAgainst(cwd: string | undefined, path: string): string {
  if (cwd === undefined || path.startsWith('/') || path.startsWith('~')) return path;
  const joined = `${cwd === '/' ? '' : cwd}/${path}`;
  if (cwd.startsWith('~')) return joined.replace(/\/\.(?=\/|$)/g, '').replace(/\/$/, '') || '~';
  const glob = /\/(\.?\*+)$/.exec(joined);
  return glob ? `${normalisePath(joined.slice(0, glob.index) || '/')}/${glob[1]}`.replace(/^\/\//, '/') : normalisePath(joined);
}

/** The working directory after `cd ARG` from `cwd` (undefined when it cannot be known). */
export function changeDirectory(cwd: string | undefined, argument: string | undefined): string | undefined {
  // bash's `cd ""` stays where it is: an empty name resolves against cwd like any relative one.
  if (argument === undefined || argument === '~') return '~';
  if (argument === '-') return undefined;
  if (argument.startsWith('/')) return normalisePath(argument);
  if (argument.startsWith('~/')) return `~/${argument.slice(2)}`.replace(/\/+$/, '');
  return cwd === undefined ? undefined : resolveAgainst(cwd, argument);
}

/**
 * Most words a brace pattern may expand to before the validator stops expanding. The words past it
 * are not read, so a pattern that reaches it counts as naming a protected path (`/{x0,…,x63,etc}`).
 */
const MAX_BRACE_WORDS = 64;

/** Bash brace expansion of one word: `/{etc,usr}` → `/etc`, `/usr`; nested groups too. No `{a..z}` ranges. */
function expandBraces(text: string): string[] {
  const open = text.indexOf('{');
  if (open === -1) return [text];
  let depth = 0;
  const commas: number[] = [];
  for (let index = open; index < text.length; index++) {
    const char = text[index];
    if (char === '{') depth++;
    else if (char === ',' && depth === 1) commas.push(index);
    else if (char === '}' && --depth === 0) {
      if (commas.length === 0) return expandBraces(text.slice(open + 1)).map((rest) => `${text.slice(0, open + 1)}${rest}`);
      const bounds = [open, ...commas, index];
      const results: string[] = [];
      for (let part = 0; part + 1 < bounds.length && results.length < MAX_BRACE_WORDS; part++) {
        const choice = text.slice(bounds[part]! + 1, bounds[part + 1]);
        results.push(...expandBraces(`${text.slice(0, open)}${choice}${text.slice(index + 1)}`));
      }
      return results.slice(0, MAX_BRACE_WORDS);
    }
  }
  return [text];
}

/** A shell glob as a regular expression over one whole path (`*` and `?` do not cross `/`). */
function globToRegExp(glob: string): RegExp {
  let source = '';
  for (let index = 0; index < glob.length; index++) {
    const char = glob[index]!;
    if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else if (char === '[') {
      const end = glob.indexOf(']', index + 2);
      if (end === -1) source += '\\[';
      else {
        const body = glob
          .slice(index + 1, end)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\');
        source += `[${body}]`;
        index = end;
      }
    } else source += char.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

/**
 * True when the word, after brace expansion and pathname expansion, can name a protected path:
 * `/{etc,usr}`, `/[e]tc`, `/e?c`, `/e*` all reach `/etc`.
 */
export function mayExpandToProtectedPath(text: string): boolean {
  const words = expandBraces(text);
  if (words.length >= MAX_BRACE_WORDS) return true;
  for (const word of words) {
    if (isProtectedPath(word)) return true;
    if (!/[*?[]/.test(word) || !word.startsWith('/')) continue;
    const pattern = globToRegExp(normalisePath(word));
    for (const directory of SYSTEM_DIRECTORIES) if (pattern.test(directory)) return true;
    // `/ho*/*`, `/[h]ome/bob`, `/*/*`: a glob whose first part reaches /home names users' homes.
    const parts = normalisePath(word).split('/');
    if (parts.length === 3 && globToRegExp(`/${parts[1]}`).test('/home')) return true;
  }
  return false;
}

/** Directories whose files are the operating system: truncating one of them breaks the host. */
const SYSTEM_FILE_ROOTS = /^\/(?:etc|boot|bin|sbin|usr|lib|lib32|lib64|libx32|var\/lib)\//;

const SYSTEM_FILE_ROOT_NAMES = ['etc', 'boot', 'bin', 'sbin', 'usr', 'lib', 'lib32', 'lib64', 'libx32'];

/**
 * True for a file inside a system directory (`/etc/fstab`, `/boot/grub/grub.cfg`, `/usr/bin/ls`),
 * also when written with braces or a glob in the directory part (`/[e]tc/fstab`, `/{etc,x}/hosts`).
 */
export function isSystemFile(path: string): boolean {
  const words = expandBraces(path);
  return (
    words.length >= MAX_BRACE_WORDS ||
    words.some((word) => {
      if (SYSTEM_FILE_ROOTS.test(normalisePath(word)) || isCriticalFile(word)) return true;
      const segments = normalisePath(word).split('/');
      if (!word.startsWith('/') || segments.length < 3 || !/[*?[]/.test(segments[1]!)) return false;
      const first = globToRegExp(segments[1]!);
      return SYSTEM_FILE_ROOT_NAMES.some((name) => first.test(name));
    })
  );
}
