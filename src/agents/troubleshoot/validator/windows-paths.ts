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

/** Lower-cased, backslashes, no quotes, no provider prefix, no trailing `\`, `\*` or `\*.*`. */
export function normaliseWindowsPath(path: string): string {
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
  const trimmed = path.trim();
  if (trimmed === '\\' || trimmed === '/' || trimmed === '\\*' || trimmed === '/*') return true;
  const normal = normaliseWindowsPath(trimmed);
  if (normal === '' || normal === '~' || /^~\\?$/.test(normal)) return true;
  const drive = /^([a-z]):(.*)$/.exec(normal);
  if (!drive) return isRegistryMachinePath(normal);
  const rest = drive[2]!.replace(/^\\/, '');
  if (rest === '' || rest === '*') return true;
  if (SYSTEM_FOLDERS.has(rest)) return true;
  return /^users\\[^\\]+$/.test(rest);
}

/** `HKLM:\…`, `HKLM\…`, `HKEY_LOCAL_MACHINE\…`, `Registry::HKEY_LOCAL_MACHINE\…`. */
export function isRegistryMachinePath(path: string): boolean {
  return /^(?:registry::)?(?:hklm|hkey_local_machine)(?::|\\|$)/i.test(path.trim().replace(/^["']/, ''));
}
