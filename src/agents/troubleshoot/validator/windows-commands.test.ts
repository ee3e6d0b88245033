import { describe, expect, it } from 'vitest';
import { decodeUtf16Base64, normaliseWindowsProgram, parameterPrefix, scanWindowsCommandLine } from './windows-commands.ts';
import { isProtectedWindowsPath } from './windows-paths.ts';

describe('scanWindowsCommandLine', () => {
  it('AR-06 splits cmd and PowerShell chains into segments and removes carets and backticks', () => {
    const scan = scanWindowsCommandLine('ip^con^fig /all & dir && I`E`X x || ver | findstr 10; Get-Date');
    expect(scan.commands.map((c) => c.program)).toEqual(['ipconfig', 'get-childitem', 'invoke-expression', 'ver', 'findstr', 'get-date']);
    expect(scan.commands[4]!.input).toBe('pipe');
  });

  it('AR-06 blocks cmd substring and replacement expansions', () => {
    expect(scanWindowsCommandLine('%COMSPEC:~0,1%md').blocked?.rule).toBe('cmd-variable-obfuscation');
    expect(scanWindowsCommandLine('echo %PATH:a=b%').blocked?.rule).toBe('cmd-variable-obfuscation');
    expect(scanWindowsCommandLine('echo %PATH%').blocked).toBeUndefined();
  });

  it('AR-06 returns script blocks, sub-expressions and cmd /c bodies as nested scripts', () => {
    const scan = scanWindowsCommandLine('Get-Service | Where-Object { $_.Status -eq "Running" }; cmd /c "dir C:\\"; echo "$(hostname)"');
    expect(scan.nested.map((n) => n.source.text.trim())).toEqual(['$_.Status -eq "Running"', 'hostname', 'dir C:\\']);
  });

  it('AR-06 reads a doubled quote inside a quoted word as one quote of that kind', () => {
    const scan = scanWindowsCommandLine(`Write-Output 'it''s' "say ""hi""" 'a""b' "c''d"`);
    expect(scan.commands[0]!.args.map((word) => word.text)).toEqual(["it's", 'say "hi"', 'a""b', "c''d"]);
  });

  it('AR-06 marks computed command names as not static', () => {
    expect(scanWindowsCommandLine('& $tool C:\\').commands[0]!.nameIsStatic).toBe(false);
    expect(scanWindowsCommandLine('& "C:\\Program Files\\x.exe" /q').commands[0]).toMatchObject({ nameIsStatic: true, program: 'x' });
  });

  it('AR-06 resolves aliases and executable paths, but not for quoted names or explicit .exe', () => {
    expect(normaliseWindowsProgram('IEX', false)).toBe('invoke-expression');
    expect(normaliseWindowsProgram('C:\\Windows\\System32\\cmd.exe', false)).toBe('cmd');
    expect(normaliseWindowsProgram('curl.exe', false)).toBe('curl');
  });

  it('AR-06 matches PowerShell parameter prefixes', () => {
    expect(parameterPrefix('-fo', 'Force')).toBe(true);
    expect(parameterPrefix('-rec', 'Recurse')).toBe(true);
    expect(parameterPrefix('-Recurse:$true', 'Recurse')).toBe(true);
    expect(parameterPrefix('-rx', 'Recurse')).toBe(false);
  });

  it('AR-06 decodes UTF-16LE base64 and rejects other text', () => {
    expect(decodeUtf16Base64(Buffer.from('Get-Date', 'utf16le').toString('base64'))).toBe('Get-Date');
    expect(decodeUtf16Base64('not base64!')).toBeUndefined();
  });

  it('AR-06 knows protected Windows paths', () => {
    for (const path of [
      'C:\\',
      'c:',
      'D:\\*',
      '\\',
      'C:\\Windows\\',
      'c:/windows/system32',
      'C:\\Users\\bob',
      '"C:\\Program Files"',
      'HKLM:\\SOFTWARE',
    ]) {
      expect(isProtectedWindowsPath(path), path).toBe(true);
    }
    for (const path of ['C:\\Temp\\build', 'C:\\Users\\bob\\AppData\\Local\\Temp\\x', '.\\out', 'D:\\data\\old']) {
      expect(isProtectedWindowsPath(path), path).toBe(false);
    }
  });
});
