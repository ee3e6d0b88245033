import { describe, expect, it } from 'vitest';
import { isHarmlessSink, pathKind } from './target-paths.ts';

describe('risk target paths', () => {
  it.each([
    ['/etc/shadow', 'credentials'],
    ['/etc//./shadow', 'credentials'],
    ['/root/.ssh/authorized_keys', 'credentials'],
    ['/home/app/.pgpass', 'credentials'],
    ['/etc/ssl/private/site.key', 'credentials'],
    ['/boot/grub/grub.cfg', 'boot'],
    ['/etc/fstab', 'boot'],
    ['/var/lib/postgresql/16/main', 'data'],
    ['/var/lib/mysql', 'data'],
    ['/dev/sda', 'device'],
    ['/dev/nvme0n1p1', 'device'],
    ['/etc/nginx/nginx.conf', 'system'],
    ['/var/log/syslog', 'system'],
    ['/', 'system'],
  ])('%s is %s', (path, kind) => {
    expect(pathKind(path)).toBe(kind);
  });

  it.each(['/tmp/x', './build', 'out.txt', '/dev/null', '/dev/stderr'])('%s is no protected kind', (path) => {
    expect(pathKind(path)).toBeUndefined();
  });

  it('knows the sinks where a write changes nothing', () => {
    expect(isHarmlessSink('/dev/null')).toBe(true);
    expect(isHarmlessSink('/dev/fd/2')).toBe(true);
    expect(isHarmlessSink('/dev/sda')).toBe(false);
    expect(isHarmlessSink('/tmp/x')).toBe(false);
  });
});
