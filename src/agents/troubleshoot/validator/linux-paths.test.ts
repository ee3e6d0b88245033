import { describe, expect, it } from 'vitest';
import { isBlockDevice, isCriticalFile, isProtectedPath, normalisePath } from './linux-paths.ts';

describe('linux paths', () => {
  it.each(['/', '/*', '//', '/etc', '/etc/', '/./etc/../etc', '/usr/*', '~', '~/', '~/*', '~root', '/home/alice', '/var/log', '/{,.}*'])(
    'AR-01 %s is protected',
    (path) => {
      expect(isProtectedPath(path)).toBe(true);
    },
  );

  it.each(['./build', 'build', '/tmp/x', '/var/log/nginx/old', '/home/alice/project/dist', '~/project/tmp', '*', '/opt/app/cache'])(
    'AR-01 %s is not protected',
    (path) => {
      expect(isProtectedPath(path)).toBe(false);
    },
  );

  it('AR-01 knows block devices and critical files', () => {
    expect(isBlockDevice('/dev/sda')).toBe(true);
    expect(isBlockDevice('/dev/nvme0n1p2')).toBe(true);
    expect(isBlockDevice('/dev/null')).toBe(false);
    expect(isBlockDevice('./test.img')).toBe(false);
    expect(isCriticalFile('/etc//passwd')).toBe(true);
    expect(isCriticalFile('/etc/sudoers.d/bob')).toBe(true);
    expect(isCriticalFile('~/.ssh/authorized_keys')).toBe(true);
    expect(isCriticalFile('/etc/hosts')).toBe(false);
    expect(normalisePath('/a/./b/../../..//c/')).toBe('/c');
  });
});

describe('working directory', () => {
  it('AR-01 resolves relative paths against a directory set by cd', async () => {
    const { changeDirectory, resolveAgainst } = await import('./linux-paths.ts');
    expect(resolveAgainst('/', '*')).toBe('/*');
    expect(resolveAgainst('/etc', '.')).toBe('/etc');
    expect(resolveAgainst('/var/www', './cache')).toBe('/var/www/cache');
    expect(resolveAgainst(undefined, '*')).toBe('*');
    expect(changeDirectory(undefined, undefined)).toBe('~');
    expect(changeDirectory('/usr', 'local')).toBe('/usr/local');
    expect(changeDirectory(undefined, 'relative')).toBeUndefined();
    expect(changeDirectory('/etc', '')).toBe('/etc');
    expect(changeDirectory(undefined, '')).toBeUndefined();
  });
});
