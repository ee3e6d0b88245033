const SYSTEM_FOLDERS = new Set([
  'windows',
  'windows\\system32',
  'windows\\syswow64',
  'windows\\winsxs',
  'windows\\system32\\config',
  'windows\\system32\\drivers',
  'program files',
  'program files (x86)',
  'programdata',
  'users',
  'boot',
  'recovery',
  'system volume information',
]);

/** Default values of the environment variables that name system folders (cmd `%X%` and PowerShell `$env:X`). */
const SYSTEM_VARIABLES: Readonly<Record<string, string>> = {
  systemdrive: 'C:',
  homedrive: 'C:',
  systemroot: 'C:\\Windows',
  windir: 'C:\\Windows',
  programfiles: 'C:\\Program Files',
  'programfiles(x86)': 'C:\\Program Files (x86)',
  programw6432: 'C:\\Program Files',
  commonprogramfiles: 'C:\\Program Files\\Common Files',
  programdata: 'C:\\ProgramData',
  allusersprofile: 'C:\\ProgramData',
  public: 'C:\\Users\\Public',
  userprofile: 'C:\\Users\\user',
  homepath: '\\Users\\user',
};

/**
 * Replaces `%SystemDrive%`, `${env:windir}`, `$env:SystemRoot` and the like by their default values.
 * Returns undefined when another variable or expression remains (the path is then only known at run time).
 */
export function expandWindowsVariables(path: string): string | undefined {
  const expanded = path.replace(/%([^%\s]+)%|\$\{env:([^}]+)\}|\$env:([\w()]+)/gi, (all, cmd?: string, braced?: string, bare?: string) => {
    const name = (cmd ?? braced ?? bare ?? '').toLowerCase();
    return SYSTEM_VARIABLES[name] ?? all;
  });
  return /[%$]/.test(expanded) ? undefined : expanded;
}

/** An 8.3 short name (`PROGRA~1`) stands for any long name that starts with the same letters. */
function shortNameMatches(short: string, long: string): boolean {
  const match = /^([a-z0-9_$-]{1,6})~\d+$/.exec(short);
  return match !== null && long.replace(/[\s.]/g, '').startsWith(match[1]!);
}

function isSystemFolder(rest: string): boolean {
  if (SYSTEM_FOLDERS.has(rest)) return true;
  if (!rest.includes('~')) return false;
  const parts = rest.split('\\');
  for (const folder of SYSTEM_FOLDERS) {
    const long = folder.split('\\');
    if (long.length === parts.length && long.every((name, index) => name === parts[index] || shortNameMatches(parts[index]!, name)))
      return true;
  }
  return false;
}

/** Lower-cased, backslashes, no quotes, no provider prefix, no trailing `\`, `\*` or `\*.*`. */
function normaliseWindowsPath(path: string): string {
  return path
    .trim()
    .replace(/^["']|["']$/g, '')
    .replace(/^(?:microsoft\.powershell\.core\\)?filesystem::/i, '')
    .replace(/^\\\\\?\\/, '')
    .replace(/\//g, '\\')
    .replace(/\\{2,}/g, '\\')
    .replace(/(?:\\\*(?:\.\*)?|\\)+$/, '')
    .toLowerCase();
}

/**
 * True for drive roots (`C:\`, `C:`, `D:\*`, `\`), system folders (`C:\Windows`, `C:\Windows\System32`,
 * `C:\Program Files`, `C:\Users`), user profiles (`C:\Users\x`, `~`), and registry hives' roots.
 */
export function isProtectedWindowsPath(path: string): boolean {
  // `\`, `/`, `\*` and `/*` (the current drive's root) normalise to '' like the root they name.
  const normal = normaliseWindowsPath(path);
  if (normal === '' || normal === '~' || /^~\\?$/.test(normal)) return true;
  const drive = /^([a-z]):(.*)$/.exec(normal);
  if (!drive) return isRegistryMachinePath(normal);
  const rest = drive[2]!.replace(/^\\/, '');
  if (rest === '' || rest === '*') return true;
  if (isSystemFolder(rest)) return true;
  return /^users\\[^\\]+$/.test(rest);
}

/** `HKLM:\…`, `HKLM\…`, `HKEY_LOCAL_MACHINE\…`, `Registry::HKEY_LOCAL_MACHINE\…`. */
export function isRegistryMachinePath(path: string): boolean {
  return /^(?:registry::)?(?:hklm|hkey_local_machine)(?::|\\|$)/i.test(path.trim().replace(/^["']/, ''));
}
