import { parseFlags } from './flags.ts';
import { isProtectedPath, normalisePath } from './linux-paths.ts';
import type { CommandRule, SimpleCommand, Word } from './types.ts';
import { staticHeredoc } from './wrapped-command.ts';

/**
 * The opt-in "strict" tier: commands that do not destroy the host but lose data or stop a service
 * that others rely on. Off by default; a host or a policy turns it on (`validate(…, { tier: 'strict' })`).
 */

function is(command: SimpleCommand, ...programs: string[]): boolean {
  return programs.includes(command.program);
}

const LOG_PATH = /^\/var\/log(?:\/|$)/;
const DROP_DATABASE = /\bdrop\s+(?:database|schema)\b/i;
const DELETES_LOGS = new Set(['rm', 'truncate', 'shred', 'unlink']);

function isLog(word: Word): boolean {
  return word.static && LOG_PATH.test(normalisePath(word.text));
}

/** The SQL a database client runs: `psql -c`, `mysql -e`, `sqlcmd -Q`, or a heredoc fed to it. */
function clientSql(c: SimpleCommand): string[] {
  const found: string[] = [];
  const options: Record<string, readonly string[]> = {
    psql: ['-c', '--command'],
    mysql: ['-e', '--execute'],
    mariadb: ['-e', '--execute'],
    sqlcmd: ['-q', '-Q'],
  };
  const names = options[c.program];
  if (!names) return found;
  c.args.forEach((arg, index) => {
    if (names.includes(arg.text) && c.args[index + 1]) found.push(c.args[index + 1]!.text);
    const glued = /^--(?:command|execute)=(.*)$/s.exec(arg.text);
    if (glued) found.push(glued[1]!);
  });
  const heredoc = staticHeredoc(c);
  if (heredoc !== undefined) found.push(heredoc);
  return found;
}

/** The docker, podman and kubectl CLIs take the same words on Linux and Windows, so both tiers share one rule. */
const CONTAINER_PRUNE: CommandRule = {
  id: 'strict-container-prune',
  category: 'destructive-delete',
  description: 'docker/podman system, volume, image or container prune, and kubectl/oc delete.',
  match: (c) => {
    const words = c.args.filter((a) => !a.text.startsWith('-')).map((a) => a.text);
    if (is(c, 'docker', 'podman') && /^(?:system|volume|image|container)$/.test(words[0] ?? '') && words[1] === 'prune')
      return `${c.program} ${words[0]} prune deletes what is not running`;
    const kubectl = parseFlags(c.args, { withValue: ['n', 'namespace', 'context', 'kubeconfig', 's', 'server', 'cluster', 'user'] });
    if (is(c, 'kubectl', 'oc') && kubectl.operands[0]?.text === 'delete') return `${c.program} delete removes cluster resources`;
    return undefined;
  },
};

export const STRICT_LINUX_BLOCKLIST: readonly CommandRule[] = [
  {
    id: 'strict-log-deletion',
    category: 'defense-evasion',
    description: 'Deleting or truncating logs under /var/log, or vacuuming the journal.',
    match: (c) => {
      if (DELETES_LOGS.has(c.program)) {
        const target = c.args.find((a) => isLog(a));
        if (target) return `${c.program} deletes or empties the log ${target.text}`;
      }
      const redirect = c.redirects.find((r) => (r.operator === '>' || r.operator === '>|') && isLog(r.target));
      if (redirect) return `the redirection empties the log ${redirect.target.text}`;
      if (is(c, 'journalctl') && c.args.some((a) => /^--(?:vacuum-(?:size|time|files)|rotate)\b/.test(a.text)))
        return 'journalctl --vacuum deletes journal files';
      return undefined;
    },
  },
  {
    id: 'strict-drop-database',
    category: 'destructive-delete',
    description: 'DROP DATABASE / DROP SCHEMA through psql, mysql or sqlcmd, and dropdb / mysqladmin drop.',
    match: (c) => {
      const sql = clientSql(c).find((text) => DROP_DATABASE.test(text));
      if (sql !== undefined) return `${c.program} runs ${sql.trim()}`;
      if (is(c, 'dropdb')) return 'dropdb deletes a database';
      if (is(c, 'mysqladmin') && c.args.some((a) => a.text === 'drop')) return 'mysqladmin drop deletes a database';
      return undefined;
    },
  },
  CONTAINER_PRUNE,
  {
    id: 'strict-rsync-delete',
    category: 'destructive-delete',
    description: 'rsync --delete (or --delete-*) into a system or home directory.',
    match: (c) => {
      if (!is(c, 'rsync') || !c.args.some((a) => /^--(?:delete|del$|remove-source-files)/.test(a.text))) return undefined;
      const { operands } = parseFlags(c.args, { withValue: ['e', 'rsh', 'f', 'filter', 'exclude', 'include', 'T', 'temp-dir'] });
      const destination = operands[operands.length - 1];
      return destination?.static && isProtectedPath(destination.text.replace(/\/$/, '') || '/')
        ? `rsync --delete would remove files from ${destination.text}`
        : undefined;
    },
  },
  {
    id: 'strict-redis-flush',
    category: 'destructive-delete',
    description: 'redis-cli FLUSHALL or FLUSHDB.',
    match: (c) => {
      if (!is(c, 'redis-cli', 'valkey-cli', 'keydb-cli')) return undefined;
      const verb = c.args.find((a) => /^flush(?:all|db)$/i.test(a.text));
      return verb ? `${c.program} ${verb.text.toUpperCase()} deletes every key` : undefined;
    },
  },
];

export const STRICT_WINDOWS_BLOCKLIST: readonly CommandRule[] = [
  {
    id: 'strict-stop-service',
    category: 'system-power',
    description: 'Stopping or disabling Windows services (Stop-Service, sc stop, net stop, Set-Service -StartupType Disabled).',
    match: (c) => {
      const args = c.args.map((a) => a.text.toLowerCase());
      if (is(c, 'stop-service', 'suspend-service')) return `${c.name} stops a service`;
      if (is(c, 'sc') && /^(?:stop|pause|delete)$/.test(args[0] ?? '')) return `sc ${args[0]} stops or removes a service`;
      if (is(c, 'sc') && args[0] === 'config' && args.some((a, i) => a === 'start=' && args[i + 1] === 'disabled'))
        return 'sc config … start= disabled disables a service';
      if (is(c, 'net', 'net1') && args[0] === 'stop') return 'net stop stops a service';
      if (is(c, 'set-service') && args.some((a) => a === 'disabled' || a === 'stopped' || /:(?:disabled|stopped)$/.test(a)))
        return 'Set-Service stops or disables a service';
      return undefined;
    },
  },
  {
    id: 'strict-log-deletion',
    category: 'defense-evasion',
    description:
      'Deleting or emptying log files and folders (Remove-Item …\\Logs, Clear-Content app.log); clearing event logs is in the core tier.',
    match: (c) => {
      if (is(c, 'remove-item', 'clear-content') && c.args.some((a) => /\\logs?(?:\\|$)|\.log$|\.evtx$/i.test(a.text)))
        return `${c.name} deletes or empties logs`;
      return undefined;
    },
  },
  {
    id: 'strict-drop-database',
    category: 'destructive-delete',
    description: 'DROP DATABASE through sqlcmd, Invoke-Sqlcmd, osql, psql or mysql.',
    match: (c) => {
      const sql = c.args.find((a) => DROP_DATABASE.test(a.text));
      if (sql && is(c, 'sqlcmd', 'psql', 'mysql', 'invoke-sqlcmd', 'osql')) return `${c.name} runs ${sql.text}`;
      return undefined;
    },
  },
  CONTAINER_PRUNE,
];
