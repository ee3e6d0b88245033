import { describe, expect, it } from 'vitest';
import { assessCommandRisk } from './risk.ts';

describe('troubleshoot command risk (docs/risk.md)', () => {
  it.each([
    ['df -h', 'low', 'read-only diagnostics: df'],
    ['uptime', 'low', 'read-only diagnostics: uptime'],
    ['journalctl -u nginx --since "1 hour ago" | tail -n 50', 'low', 'read-only diagnostics: journalctl, tail'],
    ['systemctl status nginx', 'low', 'read-only diagnostics: systemctl status nginx'],
    ['sudo free -m && ps aux --sort=-%mem | head', 'low', 'read-only diagnostics: free, ps, head'],
    ['Get-Service -Name W3SVC', 'low', 'read-only diagnostics: get-service'],
    ['curl -s http://localhost:8080/health', 'medium', '`curl` is not a known read-only diagnostic'],
    ['sudo systemctl restart nginx', 'high', '`systemctl restart nginx` changes a service (restart)'],
    ['service nginx stop', 'high', '`service nginx stop` changes a service (stop)'],
    ['kill -9 4242', 'high', '`kill -9 4242` kills processes'],
    ['pkill -f worker', 'high', '`pkill -f worker` kills processes'],
    ['journalctl --vacuum-time=2d', 'high', '`journalctl --vacuum-time=2d` changes the journal'],
    ['echo 1 > /proc/sys/vm/drop_caches', 'high', '`echo 1 > /proc/sys/vm/drop_caches` writes to /proc/sys/vm/drop_caches'],
    ['find /tmp -name "*.log" -delete', 'high', '`find /tmp -name *.log -delete` runs actions on the files it finds'],
    ['rm /tmp/app.pid', 'high', '`rm /tmp/app.pid` deletes files'],
    ['rm -rf /var/log/*', 'critical', '`rm -rf /var/log/*` deletes files recursively'],
    ['sudo reboot', 'critical', '`reboot` restarts or stops the machine'],
    ['Restart-Service W3SVC', 'high', '`restart-service W3SVC` changes a service'],
  ])('%s → %s', (command, level, reason) => {
    expect(assessCommandRisk(command)).toEqual({ level, reason });
  });

  it('the worst segment of a list decides', () => {
    expect(assessCommandRisk('df -h; systemctl restart nginx').level).toBe('high');
    expect(assessCommandRisk('uptime && rm -rf /srv/cache').level).toBe('critical');
  });

  it('a quoted separator is part of a word, not a new command', () => {
    expect(assessCommandRisk('grep "a;reboot" /var/log/syslog').level).toBe('low');
  });
});
