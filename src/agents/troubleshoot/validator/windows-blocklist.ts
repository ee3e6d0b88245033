import type { CommandRule, SimpleCommand, Word } from './types.ts';
import { parameterPrefix } from './windows-commands.ts';
import { expandWindowsVariables, isProtectedWindowsPath, isRegistryMachinePath } from './windows-paths.ts';

function is(command: SimpleCommand, ...programs: string[]): boolean {
  return programs.includes(command.program);
}

/** True when a PowerShell switch is given by any prefix and not turned off (`-Recurse:$false`). */
function hasSwitch(command: SimpleCommand, parameter: string, minimum = 1): boolean {
  return command.args.some((a) => parameterPrefix(a.text, parameter, minimum) && !/:\s*(?:\$false|0)$/i.test(a.text));
}

/** The value of a PowerShell parameter given by any prefix (`-Na lsass`, `-Name:lsass`). */
function parameterValue(command: SimpleCommand, parameter: string, minimum = 1): Word | undefined {
  for (let index = 0; index < command.args.length; index++) {
    const text = command.args[index]!.text;
    if (!parameterPrefix(text, parameter, minimum)) continue;
    const colon = text.indexOf(':');
    return colon !== -1 ? { text: text.slice(colon + 1), static: command.args[index]!.static } : command.args[index + 1];
  }
  return undefined;
}

function cmdSwitch(command: SimpleCommand, ...names: string[]): boolean {
  return command.args.some((a) => names.includes(a.text.toLowerCase()));
}

function lowerArgs(command: SimpleCommand): string {
  return command.args.map((a) => a.text.toLowerCase()).join(' ');
}

function splitPathList(word: Word): Word[] {
  return word.text
    .split(',')
    .filter((part) => part.trim() !== '')
    .map((part) => {
      // Expanded even when quoted: cmd.exe expands %VAR% inside quotes, and the shell is not known.
      // A word known only at run time for another reason (`!target!` under delayed expansion, `(Get-Item x)`) stays so.
      const expanded = /[%$]/.test(part) ? expandWindowsVariables(part.trim()) : word.static ? part.trim() : undefined;
      return expanded === undefined ? { text: part.trim(), static: false } : { text: expanded.replace(/^["']|["']$/g, ''), static: true };
    });
}

/** Raw disks and volumes: `\\.\PhysicalDrive0`, `\\.\C:`, `\\?\Volume{…}`, `\\.\Harddisk0Partition1`. */
const RAW_DEVICE = /^>*\\\\[.?]\\(?:physicaldrive\d+|[a-z]:|harddisk\d+|volume\{)/i;
const WRITES_CONTENT = new Set(['set-content', 'add-content', 'out-file', 'copy-item', 'copy', 'xcopy', 'dd', 'tee-object']);

const CRITICAL_PROCESSES = /^(?:lsass|csrss|wininit|winlogon|smss|services|svchost|system)(?:\.exe)?$/i;
const PROTECTION_SERVICES =
  /^(?:windefend|sense|wdnissvc|wdboot|wdfilter|mpssvc|eventlog|wscsvc|securityhealthservice|sysmon\d*|bfe|wuauserv)$/i;

export const DEFAULT_WINDOWS_BLOCKLIST: readonly CommandRule[] = [
  {
    id: 'dynamic-command-name',
    category: 'obfuscation',
    description: 'The command is computed at run time (& $x, & (…), .($x), wildcards, %VAR%).',
    match: (c) => (c.nameIsStatic ? undefined : `the command "${c.name}" is only known at run time`),
  },
  {
    id: 'dot-source-dynamic',
    category: 'obfuscation',
    description: 'Dot-sourcing a script whose path or content is computed at run time.',
    match: (c) =>
      c.program === '.' && c.args[0] && !c.args[0].static ? `. runs ${c.args[0].text}, which is only known at run time` : undefined,
  },
  {
    id: 'invoke-expression',
    category: 'remote-code',
    description: 'Invoke-Expression and its alias iex run a string as code; Set-Alias/New-Alias to a blocked command.',
    match: (c) => {
      if (is(c, 'invoke-expression')) return `${c.name} runs a string as PowerShell code`;
      if (
        is(c, 'set-alias', 'new-alias') &&
        c.args.some((a) => /^(?:iex|invoke-expression|format-volume|clear-disk|invoke-command)$/i.test(a.text))
      )
        return `${c.name} points an alias at a blocked command`;
      return undefined;
    },
  },
  {
    id: 'pipe-to-shell',
    category: 'remote-code',
    description: 'Piping anything into powershell, pwsh, cmd or another interpreter (iwr … | powershell -).',
    match: (c) =>
      c.input === 'pipe' && is(c, 'powershell', 'pwsh', 'cmd', 'bash', 'sh', 'wsl', 'python', 'python3', 'wscript', 'cscript', 'mshta')
        ? `piped output is fed into ${c.name}`
        : undefined,
  },
  {
    id: 'dynamic-code-expression',
    category: 'remote-code',
    description:
      'Download cradles and code built at run time: WebClient.DownloadString/DownloadData/DownloadFile, [scriptblock]::Create, Assembly.Load, Process.Start.',
    match: (c) => {
      const text = `${c.name} ${c.args.map((a) => a.text).join(' ')}`;
      const found =
        /\.\s*(?:DownloadString|DownloadData|DownloadFile|OpenRead|UploadString)\s*\(|\[\s*(?:System\.)?Management\.Automation\.ScriptBlock\s*\]\s*::\s*Create|\[\s*scriptblock\s*\]\s*::\s*Create|\[\s*(?:System\.)?Reflection\.Assembly\s*\]\s*::\s*Load|\[\s*(?:System\.)?Diagnostics\.Process\s*\]\s*::\s*Start|\[\s*(?:System\.)?IO\.(?:Directory|File)\s*\]\s*::\s*Delete|\bInvokeScript\s*\(|\$ExecutionContext\.InvokeCommand|FromBase64String/i.exec(
          text,
        );
      return found ? `${found[0]} runs code or touches files that cannot be checked` : undefined;
    },
  },
  {
    id: 'disk-format',
    category: 'disk-destruction',
    description:
      'Formatting, clearing, initialising or repartitioning disks and volumes (Format-Volume, Clear-Disk, Initialize-Disk, Remove-Partition, format c:, diskpart).',
    match: (c) => {
      if (
        is(
          c,
          'format-volume',
          'clear-disk',
          'initialize-disk',
          'remove-partition',
          'reset-physicaldisk',
          'remove-physicaldisk',
          'remove-virtualdisk',
          'set-disk',
          'diskpart',
          'format',
          'new-partition',
          'resize-partition',
          'remove-storagepool',
        )
      ) {
        if (is(c, 'format') && c.args.length === 0) return undefined;
        return `${c.name} changes or erases disks`;
      }
      if (is(c, 'cipher') && c.args.some((a) => /^\/w(?::|$)/i.test(a.text))) return 'cipher /w overwrites free space';
      const raw = c.args.findIndex((a) => RAW_DEVICE.test(a.text));
      if (raw !== -1 && (WRITES_CONTENT.has(c.program) || c.args[raw]!.text.startsWith('>') || /^>>?$/.test(c.args[raw - 1]?.text ?? '')))
        return `${c.name} writes to the raw device ${c.args[raw]!.text.replace(/^>+/, '')}`;
      if (is(c, 'fsutil') && /\b(?:usn\s+deletejournal|file\s+setzerodata|repair\s+initiate)\b/i.test(lowerArgs(c)))
        return 'fsutil destroys file system data';
      if (is(c, 'mountvol') && cmdSwitch(c, '/d', '/p', '/r')) return 'mountvol removes volume mount points';
      return undefined;
    },
  },
  {
    id: 'boot-and-backup-destruction',
    category: 'disk-destruction',
    description:
      'Changing boot configuration or deleting shadow copies and backups (bcdedit, vssadmin delete shadows, wbadmin delete catalog, wmic shadowcopy delete).',
    match: (c) => {
      if (is(c, 'bcdedit') && !c.args.every((a) => /^\/(?:enum|v)$|^(?:all|active|firmware|bootmgr|osloader|\{[\w-]+\})$/i.test(a.text)))
        return 'bcdedit changes how Windows boots';
      if (is(c, 'bcdboot')) return 'bcdboot rewrites boot files';
      if (is(c, 'vssadmin') && /\b(?:delete|resize)\b/i.test(lowerArgs(c))) return 'vssadmin deletes shadow copies';
      if (is(c, 'wbadmin') && /\bdelete\b/i.test(lowerArgs(c))) return 'wbadmin deletes backups';
      if (is(c, 'wmic') && /shadowcopy/i.test(lowerArgs(c)) && /\bdelete\b/i.test(lowerArgs(c))) return 'wmic deletes shadow copies';
      if (/win32_shadowcopy/i.test(c.segment) && (is(c, 'remove-wmiobject', 'remove-ciminstance') || /\.delete\(\)/i.test(c.segment)))
        return 'deletes shadow copies';
      if (is(c, 'remove-wmiobject', 'remove-ciminstance') && c.input === 'pipe') return `${c.name} deletes what the pipeline feeds it`;
      return undefined;
    },
  },
  {
    id: 'process-spawn-loop',
    category: 'fork-bomb',
    description: 'An endless PowerShell or cmd loop that starts processes (while ($true) { Start-Process … }, for (;;) { start … }).',
    match: (c) => {
      if (!is(c, 'while', 'for', 'do')) return undefined;
      const endless = /^\s*(?:while|do)\b[^{]*\(\s*(?:\$true|1|!\$false)\s*\)|^\s*for\s*\(\s*[^;]*;\s*;/i.test(c.segment) || is(c, 'do');
      const spawns = /\b(?:start-process|saps|start|start-job|invoke-item|\w+\.exe)\b/i.test(c.args.map((a) => a.text).join(' '));
      return endless && spawns ? `${c.name} starts processes in an endless loop` : undefined;
    },
  },
  {
    id: 'system-power',
    category: 'system-power',
    description: 'Stop-Computer, Restart-Computer, shutdown /s /r /p.',
    match: (c) => {
      if (is(c, 'stop-computer', 'restart-computer')) return `${c.name} stops the host`;
      if (is(c, 'shutdown') && !cmdSwitch(c, '/a', '-a', '/?')) return 'shutdown stops the host';
      return undefined;
    },
  },
  {
    id: 'recursive-delete-system-path',
    category: 'destructive-delete',
    description: 'Remove-Item / del / rd of drive roots, system folders, user profiles or HKLM keys; recursive deletes of computed paths.',
    match: (c) => {
      if (!is(c, 'remove-item', 'remove-itemproperty', 'clear-content', 'clear-item')) return undefined;
      if (hasSwitch(c, 'whatif', 2)) return undefined;
      const recursive = hasSwitch(c, 'recurse') || cmdSwitch(c, '/s');
      const paths = c.args.filter((a) => !/^[-/][A-Za-z]+(?::.*)?$/.test(a.text) || /^[A-Za-z]:/.test(a.text));
      const named = parameterValue(c, 'path') ?? parameterValue(c, 'literalpath', 1);
      // `-Path a, b` and `a,b` name several paths; variables with known defaults (`%SystemDrive%`) are expanded.
      const targets = (named ? [named, ...paths.filter((p) => p !== named)] : paths).flatMap(splitPathList);
      const protectedTarget = targets.find((p) => p.static && (isProtectedWindowsPath(p.text) || isRegistryMachinePath(p.text)));
      if (protectedTarget) return `${c.name} would delete ${protectedTarget.text}`;
      const dynamic = targets.find((p) => !p.static);
      if (recursive && dynamic) return `recursive delete of ${dynamic.text}, which is only known at run time`;
      return undefined;
    },
  },
  {
    id: 'move-system-path',
    category: 'destructive-delete',
    description: 'Move-Item / move / mv of drive roots, system folders or user profiles (Windows no longer finds them where they were).',
    match: (c) => {
      if (!is(c, 'move-item')) return undefined;
      if (hasSwitch(c, 'whatif', 2)) return undefined;
      const named = parameterValue(c, 'path') ?? parameterValue(c, 'literalpath', 1);
      const destination = parameterValue(c, 'destination');
      const positional = c.args.filter(
        (a) => (!/^[-/][A-Za-z]+(?::.*)?$/.test(a.text) || /^[A-Za-z]:/.test(a.text)) && a !== named && a !== destination,
      );
      // Without -Destination the last of two or more positional paths is where things go, as in `move a b`.
      const sources = [...(named ? [named] : []), ...(destination || positional.length < 2 ? positional : positional.slice(0, -1))];
      const protectedSource = sources.flatMap(splitPathList).find((p) => p.static && isProtectedWindowsPath(p.text));
      return protectedSource ? `${c.name} would move ${protectedSource.text} away` : undefined;
    },
  },
  {
    id: 'registry-machine-change',
    category: 'persistence',
    description:
      'reg delete of HKLM, autorun keys (Run, RunOnce, Winlogon, Image File Execution Options), and saving SAM/SYSTEM/SECURITY hives.',
    match: (c) => {
      const args = lowerArgs(c);
      if (is(c, 'reg')) {
        const verb = c.args[0]?.text.toLowerCase();
        if (verb === 'delete' && isRegistryMachinePath(c.args[1]?.text ?? '')) return `reg delete removes ${c.args[1]!.text}`;
        if ((verb === 'save' || verb === 'export') && /\\(?:sam|system|security)\b/i.test(args)) return 'reg save copies password hashes';
        if (verb === 'add' && /\\(?:run|runonce|winlogon|image file execution options|services)\b/i.test(args))
          return 'reg add changes what starts automatically';
      }
      if (is(c, 'set-itemproperty', 'new-itemproperty') && /\\(?:run|runonce|winlogon|image file execution options)\b/i.test(args))
        return `${c.name} changes what starts automatically`;
      return undefined;
    },
  },
  {
    id: 'defense-evasion',
    category: 'defense-evasion',
    description:
      'Turning off Defender, the firewall, event logs or auditing (Set-MpPreference -DisableRealtimeMonitoring, wevtutil cl, netsh advfirewall … off).',
    match: (c) => {
      if (is(c, 'set-mppreference', 'add-mppreference')) {
        const off = c.args.find(
          (a, i) =>
            /^-disable/i.test(a.text) && !/^(?:\$false|0|false)$/i.test(c.args[i + 1]?.text ?? '') && !/:\s*(?:\$false|0)$/i.test(a.text),
        );
        if (off) return `${c.name} ${off.text} turns Defender protection off`;
        const exclusion = c.args.find((a) => /^-exclusion/i.test(a.text));
        if (exclusion) return `${c.name} ${exclusion.text} hides files from Defender`;
      }
      if (is(c, 'wevtutil') && /^(?:cl|clear-log|sl|set-log)$/i.test(c.args[0]?.text ?? ''))
        return 'wevtutil clears or disables an event log';
      if (is(c, 'clear-eventlog', 'remove-eventlog', 'limit-eventlog')) return `${c.name} destroys event logs`;
      if (is(c, 'auditpol') && cmdSwitch(c, '/clear', '/remove')) return 'auditpol clears the audit policy';
      if (is(c, 'netsh') && /\b(?:state\s+off|opmode\s+(?:mode=)?disable)\b/i.test(lowerArgs(c))) return 'netsh turns the firewall off';
      if (is(c, 'set-netfirewallprofile') && /-enabled?\s*:?\s*(?:\$?false|0)/i.test(lowerArgs(c)))
        return 'Set-NetFirewallProfile turns the firewall off';
      if (is(c, 'sc', 'net', 'stop-service', 'set-service', 'remove-service', 'suspend-service')) {
        const verb = c.args[0]?.text.toLowerCase() ?? '';
        const service = c.args.find((a) => PROTECTION_SERVICES.test(a.text));
        const stops =
          is(c, 'stop-service', 'remove-service', 'suspend-service') ||
          (is(c, 'set-service') && /disabled|stopped/i.test(lowerArgs(c))) ||
          /^(?:stop|delete|config|pause)$/.test(verb);
        if (service && stops) return `${c.name} stops or disables ${service.text}`;
      }
      return undefined;
    },
  },
  {
    id: 'lolbas-download-execute',
    category: 'remote-code',
    description:
      'Living-off-the-land downloaders and executors: certutil -urlcache, bitsadmin /transfer, mshta, rundll32 javascript:, regsvr32 /i:http scrobj.dll, msiexec from a URL, wmic process call create.',
    match: (c) => {
      const args = lowerArgs(c);
      if (is(c, 'certutil') && /(?:^|\s)[-/](?:urlcache|verifyctl|decode|decodehex)\b/.test(args))
        return 'certutil downloads or decodes a payload';
      if (is(c, 'bitsadmin') && /\/(?:transfer|addfile|setnotifycmdline|create)\b/.test(args))
        return 'bitsadmin downloads or schedules a program';
      if (is(c, 'mshta') && c.args.length > 0) return 'mshta runs script from a file or URL';
      if (
        is(c, 'rundll32') &&
        /javascript:|vbscript:|url\.dll|shell32\.dll\s*,\s*(?:shellexec_rundll|control_rundll)|advpack\.dll|ieadvpack\.dll|zipfldr\.dll|pcwutl\.dll|comsvcs\.dll|setupapi\.dll|shdocvw\.dll|mshtml\.dll/.test(
          args,
        )
      )
        return 'rundll32 runs script or dumps memory';
      if (is(c, 'regsvr32') && (/\/i:\s*(?:https?|\\\\|ftp)/.test(args) || /scrobj\.dll/.test(args)))
        return 'regsvr32 runs a remote scriptlet';
      if (is(c, 'msiexec') && /(?:https?:|\\\\)/.test(args)) return 'msiexec installs a package from the network';
      if (is(c, 'wmic') && (/\bprocess\s+call\s+create\b/.test(args) || /\/format:\s*["']?(?:https?|\\\\)/.test(args)))
        return 'wmic starts a process or runs a remote stylesheet';
      if (
        is(
          c,
          'wscript',
          'cscript',
          'hh',
          'msxsl',
          'cmstp',
          'odbcconf',
          'pcalua',
          'mavinject',
          'installutil',
          'regasm',
          'regsvcs',
          'msbuild',
          'presentationhost',
          'ieexec',
          'syncappvpublishingserver',
        )
      ) {
        if (is(c, 'cscript', 'wscript') && !/(?:https?:|\\\\|\/\/e:)/.test(args)) return undefined;
        return `${c.name} is a known way to run code that evades review`;
      }
      return undefined;
    },
  },
  {
    id: 'credential-access',
    category: 'credential-access',
    description: 'Dumping LSASS or credentials (procdump lsass, comsvcs MiniDump, mimikatz, ntdsutil).',
    match: (c) => {
      const args = lowerArgs(c);
      if (is(c, 'mimikatz', 'ntdsutil', 'pypykatz', 'lazagne')) return `${c.name} extracts credentials`;
      if (is(c, 'procdump', 'procdump64') && /lsass/.test(args)) return 'procdump of lsass extracts credentials';
      if (/lsass/.test(args) && /minidump|out-minidump|-ma\b/.test(args)) return 'dumps LSASS memory';
      return undefined;
    },
  },
  {
    id: 'account-persistence',
    category: 'persistence',
    description: 'Creating accounts or adding them to Administrators; scheduled tasks and services that run programs.',
    match: (c) => {
      const args = lowerArgs(c);
      if (
        is(c, 'net', 'net1') &&
        /^(?:user|localgroup|group)$/.test(c.args[0]?.text.toLowerCase() ?? '') &&
        /\/add\b|\/active:yes/.test(args)
      )
        return `net ${c.args[0]!.text} adds an account or group member`;
      if (is(c, 'new-localuser', 'add-localgroupmember', 'enable-localuser')) return `${c.name} creates or empowers an account`;
      if (is(c, 'schtasks') && /\/(?:create|change)\b/.test(args)) return 'schtasks creates a scheduled program';
      if (is(c, 'register-scheduledtask', 'new-scheduledtask', 'new-service')) return `${c.name} creates something that runs later`;
      if (is(c, 'sc') && /^(?:create)$/.test(c.args[0]?.text.toLowerCase() ?? '')) return 'sc create installs a service';
      return undefined;
    },
  },
  {
    id: 'kill-critical-process',
    category: 'process-kill',
    description: 'Killing lsass, csrss, wininit, winlogon, services or svchost (a crash or reboot).',
    match: (c) => {
      if (is(c, 'taskkill') && c.args.some((a) => CRITICAL_PROCESSES.test(a.text))) return 'taskkill of a critical Windows process';
      if (is(c, 'stop-process') && c.args.some((a) => CRITICAL_PROCESSES.test(a.text) || a.text === '4'))
        return 'Stop-Process of a critical Windows process';
      return undefined;
    },
  },
];
