import type { SimpleCommand } from '../validator/index.ts';
import { type Effect, effect } from './effect.ts';

/**
 * Programs that only read, whatever their options (the ones that write with some option, like
 * `sort -o` or `ip link set`, are in file-effects/system-effects instead). PowerShell reads too,
 * lower-cased, so a Windows command scored before its host is known is not mistaken for unknown.
 */
export const READS = new Set(
  (
    'awk gawk mawk nawk sed sort uniq tee dd df du uptime free top htop atop btop ps pstree cat tac less more head tail grep egrep fgrep zgrep rg zcat zless bzcat xzcat ls ll ' +
    'stat file wc cut tr paste join column fold fmt nl expand unexpand comm rev tsort numfmt seq yes cal bc expr ' +
    'echo printf hostname uname whoami id groups who w last lastlog lastb users printenv which type whereis ' +
    'nproc lscpu lsblk lsusb lspci lsmod lsns lsipc lslocks lslogins blkid findmnt vmstat iostat mpstat sar pidstat lsof ss ' +
    'netstat ping ping6 traceroute tracepath mtr dig nslookup host getent dmesg ulimit md5sum sha1sum sha256sum sha512sum ' +
    'cksum b2sum getenforce sestatus test [ [[ true false sleep pwd basename dirname realpath readlink diff cmp jq yq xxd od ' +
    'hexdump strings base64 base32 iconv pgrep pidof uptime tload slabtop iotop iftop nethogs nload ethtool iwconfig ' +
    'resolvectl nmcli systemd-analyze systemd-cgls systemd-cgtop loginctl busctl coredumpctl lvs vgs pvs lvdisplay vgdisplay ' +
    'pvdisplay dmidecode smartctl nvme mdadm-detail ldd nm objdump readelf getfacl lsattr namei tree find locate mlocate ' +
    'cd pushd popd export unset set local declare typeset read shift wait jobs history alias unalias hash umask true : ' +
    'tput clear reset mktemp ' +
    'get-process get-service get-eventlog get-winevent get-childitem get-content get-item get-itemproperty get-volume get-disk ' +
    'get-netipaddress get-nettcpconnection get-netadapter get-computerinfo get-hotfix get-ciminstance get-wmiobject get-counter ' +
    'get-acl get-date get-location get-psdrive get-command get-help get-member get-scheduledtask test-connection test-path ' +
    'test-netconnection resolve-dnsname select-string select-object where-object sort-object measure-object format-table ' +
    'format-list out-string write-output write-host tasklist systeminfo ipconfig whoami.exe hostname.exe'
  ).split(' '),
);

const KILLS = new Set(['pkill', 'killall', 'killall5', 'skill', 'snice', 'stop-process', 'taskkill', 'xkill']);
const POWER = new Set(['reboot', 'shutdown', 'halt', 'poweroff', 'init', 'telinit', 'kexec', 'restart-computer', 'stop-computer']);
/** Partition, filesystem and disk tools; the ones listed in DISK_READ_OPTIONS only read with those options. */
export const DISK = new Set([
  'fdisk',
  'sfdisk',
  'gdisk',
  'sgdisk',
  'cfdisk',
  'parted',
  'wipefs',
  'mkswap',
  'mke2fs',
  'blkdiscard',
  'badblocks',
  'hdparm',
  'cryptsetup',
  'lvremove',
  'vgremove',
  'pvremove',
  'lvcreate',
  'lvextend',
  'lvreduce',
  'lvresize',
  'vgcreate',
  'vgextend',
  'pvcreate',
  'resize2fs',
  'tune2fs',
  'mdadm',
  'zpool',
  'zfs',
  'format',
  'clear-disk',
  'format-volume',
  'initialize-disk',
  'remove-partition',
]);
const DISK_READ_OPTIONS: Readonly<Record<string, RegExp>> = {
  fdisk: /^(?:-l|--list|-x)$/,
  sfdisk: /^(?:-l|--list|-d|--dump|-s|--show-size|-J|--json|-V|--verify)$/,
  gdisk: /^-l$/,
  sgdisk: /^(?:-p|--print|-i|--info|-v|--verify)$/,
  parted: /^(?:-l|--list|print)$/,
  wipefs: /^(?:-n|--no-act|--noheadings|-J|--json|-O|--output)$|^[^-]/,
  hdparm: /^(?:-I|-i|-t|-T|-g|-C|-B|-M)$|^[^-]/,
  cryptsetup: /^(?:status|luksDump|isLuks|--version|-v)$/,
  mdadm: /^(?:--detail|-D|--examine|-E|--query|-Q)$/,
  zpool: /^(?:status|list|iostat|history|get|events)$/,
  zfs: /^(?:list|get|diff)$/,
  tune2fs: /^-l$/,
};
/** Account and credential tools. */
const ACCOUNTS = new Set([
  'useradd',
  'adduser',
  'usermod',
  'userdel',
  'deluser',
  'groupadd',
  'addgroup',
  'groupdel',
  'delgroup',
  'groupmod',
  'gpasswd',
  'chpasswd',
  'chsh',
  'chfn',
  'visudo',
  'vipw',
  'vigr',
  'newusers',
  'pwconv',
  'grpconv',
  'ssh-keygen',
  'ssh-copy-id',
  'new-localuser',
  'set-localuser',
  'remove-localuser',
  'add-localgroupmember',
]);
/** Programs that talk to the network or a service without changing this host: they need a look, not a second person. */
export const NETWORK_READS = new Set([
  'curl',
  'wget',
  'nc',
  'ncat',
  'netcat',
  'socat',
  'telnet',
  'openssl',
  'nmap',
  'ssh',
  'scp',
  'sftp',
  'rsync',
  'redis-cli',
  'psql',
  'mysql',
  'mongosh',
  'mongo',
  'sqlite3',
  'ldapsearch',
  'snmpwalk',
  'invoke-webrequest',
  'invoke-restmethod',
]);
/** Interpreters and shells: what they run is only known from their code. */
export const SCRIPT_RUNNERS = new Set([
  'python',
  'python2',
  'python3',
  'pypy',
  'pypy3',
  'perl',
  'ruby',
  'node',
  'nodejs',
  'deno',
  'bun',
  'php',
  'lua',
  'luajit',
  // Lower case: the program is compared lower-cased (`Rscript` is how it is typed).
  'rscript',
  'pwsh',
  'powershell',
  'source',
  '.',
]);

/** Risk from the program's class alone: power, disks, kills and accounts. Undefined when the class says nothing. */
export function classEffect(c: SimpleCommand): Effect | undefined {
  const program = c.program.toLowerCase();
  if (POWER.has(program)) {
    if (program === 'init' || program === 'telinit')
      // Stryker disable next-line StringLiteral: a stand-in for a missing run level that is not 0, 6, s or S reads the same
      return /^[06sS]$/.test(c.args[0]?.text ?? '')
        ? effect('critical', 'restarts or stops the machine')
        : effect('high', 'changes the run level');
    if (program === 'shutdown' && c.args.some((a) => a.text === '-c')) return effect('high', 'cancels a scheduled shutdown');
    return effect('critical', 'restarts or stops the machine');
  }
  if (program.startsWith('mkfs') || program === 'mkswap') return effect('critical', 'creates a filesystem');
  if (DISK.has(program)) {
    const reads = DISK_READ_OPTIONS[program];
    if (
      reads &&
      c.args.length > 0 &&
      c.args.every((a) => reads.test(a.text) || (a.static && a.text.startsWith('/dev/') && program !== 'mdadm'))
    )
      return c.args.some((a) => reads.test(a.text)) ? undefined : effect('critical', 'writes to a disk or filesystem');
    return effect('critical', 'writes to a disk or filesystem');
  }
  if (KILLS.has(program)) return effect('high', 'kills processes');
  if (ACCOUNTS.has(program)) return effect('critical', 'changes accounts or credentials');
  if (/^(?:restart|stop|start|suspend|set|remove|new|disable|enable|clear|uninstall|install|rename|move|copy)-/.test(program))
    return effect('high', `changes the system (${program})`);
  return undefined;
}
