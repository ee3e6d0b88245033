/** Shells: anything piped or fed into these runs as code. */
export const SHELLS = new Set([
  'sh',
  'bash',
  'dash',
  'zsh',
  'ksh',
  'mksh',
  'pdksh',
  'ksh93',
  'ash',
  'fish',
  'csh',
  'tcsh',
  'rbash',
  'yash',
  'posh',
]);

/** Interpreters that read a program from standard input when given no script. */
export const INTERPRETERS = new Set([
  'python',
  'python2',
  'python3',
  'pypy',
  'pypy3',
  'perl',
  'ruby',
  'irb',
  'node',
  'nodejs',
  'deno',
  'bun',
  'php',
  'lua',
  'luajit',
  'tclsh',
  'wish',
  'pwsh',
  'powershell',
  'jshell',
  'gdb',
  'expect',
  'Rscript',
  'R',
]);

/** `python3.11` → `python3`; other names unchanged. */
export function programFamily(program: string): string {
  return program.replace(/^(python[23]?|pypy3?|php|lua|ruby|perl)[\d.]+$/, '$1');
}

/** Where each interpreter takes inline code: `python -c CODE`, `perl -e CODE`, … */
export const INLINE_CODE_FLAGS: Readonly<Record<string, readonly string[]>> = {
  python: ['-c'],
  python2: ['-c'],
  python3: ['-c'],
  pypy: ['-c'],
  pypy3: ['-c'],
  perl: ['-e', '-E'],
  ruby: ['-e'],
  node: ['-e', '--eval', '-p', '--print'],
  nodejs: ['-e', '--eval', '-p', '--print'],
  deno: ['eval'],
  bun: ['-e', '--eval'],
  php: ['-r'],
  lua: ['-e'],
  luajit: ['-e'],
  Rscript: ['-e'],
  expect: ['-c'],
  gdb: ['-ex', '--ex', '-eval-command', '--eval-command'],
};

/**
 * Signs that inline interpreter code runs other programs or opens a network shell: exactly what
 * GTFOBins' "shell" and "reverse shell" entries use. Ordinary one-liners (`json.tool`, regex edits,
 * arithmetic) contain none of these.
 */
export const CODE_SPAWNS_PROCESS = new RegExp(
  [
    String.raw`\b(?:subprocess|child_process|pty\s*\.\s*spawn|socket|fsockopen|TCPSocket|UNIXSocket|Runtime\s*\.\s*getRuntime|pcntl_exec|proc_open|shell_exec|passthru|popen)\b`,
    String.raw`\b(?:os\s*\.\s*(?:system|exec\w*|spawn\w*|fork)|system|exec\w*|spawn\w*|IO\s*\.\s*popen)\s*[(\s'"]`,
    String.raw`\/bin\/(?:ba|da|z|k|c|tc)?sh\b`,
    String.raw`\/dev\/(?:tcp|udp)\/`,
    String.raw`\/inet\/`,
    String.raw`\bfork\b`,
    String.raw`^\s*(?:!|shell\b)`,
  ].join('|'),
);

/** Perl, Ruby and PHP run backtick strings as shell commands. */
export const BACKTICK_EXEC = /`[^`]*`/;
export const BACKTICK_LANGUAGES = new Set(['perl', 'ruby', 'php']);

export const AWKS = new Set(['awk', 'gawk', 'mawk', 'nawk', 'busybox-awk']);

/** Editors and tools whose command options run shell commands (GTFOBins). */
export const EDITOR_COMMAND_FLAGS: Readonly<Record<string, readonly string[]>> = {
  vi: ['-c', '+', '--cmd'],
  vim: ['-c', '+', '--cmd'],
  nvim: ['-c', '+', '--cmd'],
  view: ['-c', '+', '--cmd'],
  rvim: ['-c', '+', '--cmd'],
  ex: ['-c', '+'],
  ed: [],
};

/** Editor command strings that leave the editor for a shell or an embedded interpreter. */
export const EDITOR_ESCAPE =
  /^\s*:?\s*(?:!|sh(?:ell)?\b|term(?:inal)?\b|py(?:thon)?3?\b|lua\b|perl\b|ruby\b|call\s+system|exe(?:cute)?\b)|[|:]\s*!/;
