import { beforeAll, describe, expect, it } from 'vitest';
import { type CommandValidator, createCommandValidator } from './command-validator.ts';
import { STRICT_LINUX_BLOCKLIST, STRICT_WINDOWS_BLOCKLIST } from './strict-blocklist.ts';
import type { TargetOs } from './types.ts';

let validator: CommandValidator;
beforeAll(async () => {
  validator = await createCommandValidator();
});

const STRICT_ONLY: ReadonlyArray<[TargetOs, string, string]> = [
  ['linux', 'rm -rf /var/log/nginx', 'strict-log-deletion'],
  ['linux', 'truncate -s 0 /var/log/syslog', 'strict-log-deletion'],
  ['linux', '> /var/log/app.log', 'strict-log-deletion'],
  ['linux', 'sudo journalctl --vacuum-time=1s', 'strict-log-deletion'],
  ['linux', 'journalctl -q --vacuum-files=2', 'strict-log-deletion'],
  ['linux', 'psql -c "DROP DATABASE app"', 'strict-drop-database'],
  ['linux', 'psql --command="drop schema public cascade" app', 'strict-drop-database'],
  ['linux', "mysql -e 'DROP DATABASE shop'", 'strict-drop-database'],
  ['linux', "mariadb -e 'DROP DATABASE shop'", 'strict-drop-database'],
  ['linux', "mariadb --execute 'DROP DATABASE shop'", 'strict-drop-database'],
  ['linux', 'psql app <<EOF\nDROP DATABASE app;\nEOF', 'strict-drop-database'],
  ['linux', 'dropdb app', 'strict-drop-database'],
  ['linux', 'docker system prune -af', 'strict-container-prune'],
  ['linux', 'docker volume prune -f', 'strict-container-prune'],
  ['linux', 'podman image prune -a', 'strict-container-prune'],
  ['linux', 'docker container prune --force', 'strict-container-prune'],
  ['linux', 'kubectl delete namespace prod', 'strict-container-prune'],
  ['linux', 'sudo kubectl -n prod delete pod web-1', 'strict-container-prune'],
  ['linux', 'rsync -a --delete ./empty/ /etc/', 'strict-rsync-delete'],
  ['linux', 'rsync -av --delete-after /srv/src/ /usr', 'strict-rsync-delete'],
  ['linux', 'redis-cli FLUSHALL', 'strict-redis-flush'],
  ['linux', 'redis-cli -n 2 flushdb', 'strict-redis-flush'],
  ['windows', 'Stop-Service -Name W3SVC', 'strict-stop-service'],
  ['windows', 'sc stop MSSQLSERVER', 'strict-stop-service'],
  ['windows', 'net stop spooler', 'strict-stop-service'],
  ['windows', 'Suspend-Service -Name W3SVC', 'strict-stop-service'],
  ['windows', 'Set-Service -Name W3SVC -StartupType Disabled', 'strict-stop-service'],
  ['windows', 'Remove-Item C:\\inetpub\\logs\\LogFiles -Recurse', 'strict-log-deletion'],
  ['windows', 'Clear-Content C:\\app\\app.log', 'strict-log-deletion'],
  ['windows', 'sqlcmd -Q "DROP DATABASE shop"', 'strict-drop-database'],
  // The Docker, Podman and kubectl CLIs take the same words on Windows (one rule for both systems).
  ['windows', 'docker system prune -f', 'strict-container-prune'],
  ['windows', 'docker.exe volume prune', 'strict-container-prune'],
  ['windows', 'docker image prune -a', 'strict-container-prune'],
  ['windows', 'podman container prune', 'strict-container-prune'],
  ['windows', 'kubectl delete namespace prod', 'strict-container-prune'],
  ['windows', 'kubectl -n prod delete pod web-1', 'strict-container-prune'],
  ['windows', 'sqlcmd -q "DROP DATABASE shop"', 'strict-drop-database'],
  // sqlcmd runs on Linux too (mssql-tools).
  ['linux', 'sqlcmd -q "DROP DATABASE shop"', 'strict-drop-database'],
  ['linux', 'sqlcmd -Q "DROP DATABASE shop"', 'strict-drop-database'],
];

const STILL_ALLOWED: ReadonlyArray<[TargetOs, string]> = [
  ['linux', 'tail -n 100 /var/log/syslog'],
  ['linux', 'psql -c "select count(*) from orders"'],
  // Only the value of -c is SQL; a variable that holds the words is not run.
  ['linux', 'psql -d shop -v target="DROP DATABASE shop"'],
  ['linux', 'docker ps -a'],
  ['linux', 'docker system df'],
  ['linux', 'docker volume ls'],
  ['linux', 'docker prune-images.sh'],
  ['linux', 'git prune'],
  ['linux', 'kubectl get pods -A'],
  ['linux', 'rsync -a --delete ./site/ /srv/www/site/'],
  // --delay-updates is not a --del… option; a command other than rsync is not read as one.
  ['linux', 'rsync -a --delay-updates ./conf/ /etc/'],
  ['linux', 'ls -la /etc/'],
  ['linux', 'journalctl -u nginx --since today'],
  // The option must start the word: a search for the text, a file named like the option.
  ['linux', 'journalctl --grep=--rotate'],
  ['linux', 'rsync -a --exclude=--delete ./conf/ /etc/'],
  ['linux', 'redis-cli INFO'],
  ['windows', 'Get-Service W3SVC'],
  ['windows', 'docker system df'],
  ['windows', 'kubectl -n prod get pods'],
  ['windows', 'sc query W3SVC'],
];

describe('strict tier (opt-in)', () => {
  it.each(STRICT_ONLY)('%s: %j is allowed by default and blocked by the strict tier (%s)', (os, command, rule) => {
    expect(validator.validate(command, os).verdict).toBe('allow');
    const verdict = validator.validate(command, os, { tier: 'strict' });
    expect(verdict).toMatchObject({ verdict: 'block', rule });
    expect(verdict.reason.length).toBeGreaterThan(10);
  });

  it.each(STILL_ALLOWED)('%s: %j stays allowed in the strict tier', (os, command) => {
    expect(validator.validate(command, os, { tier: 'strict' }).verdict).toBe('allow');
  });

  it('still applies the core rules in the strict tier, and can be the default of a validator', async () => {
    expect(validator.validate('rm -rf /', 'linux', { tier: 'strict' }).rule).toBe('recursive-delete-system-path');
    const strict = await createCommandValidator({ tier: 'strict' });
    expect(strict.validate('redis-cli FLUSHALL', 'linux').verdict).toBe('block');
    expect(strict.validate('redis-cli FLUSHALL', 'linux', { tier: 'core' }).verdict).toBe('allow');
  });

  it('every strict rule blocks at least one line above', () => {
    const used = new Set(STRICT_ONLY.map(([os, , rule]) => `${os}:${rule}`));
    for (const rule of STRICT_LINUX_BLOCKLIST) expect(used, rule.id).toContain(`linux:${rule.id}`);
    for (const rule of STRICT_WINDOWS_BLOCKLIST) expect(used, rule.id).toContain(`windows:${rule.id}`);
  });
});
