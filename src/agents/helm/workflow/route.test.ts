import { describe, expect, it } from 'vitest';
import { parseHelmCommand } from './parse-command.ts';
import { classifyHelmRequest } from './route.ts';

describe('supervisor classification (spec keyword table) and the offline grammar', () => {
  it.each([
    ['list releases', 'query'],
    ['show me the status of web', 'query'],
    ['search nginx', 'query'],
    ['describe release web', 'query'],
    ['check web', 'query'],
    ['install webapp', 'workflow'],
    ['please upgrade web', 'workflow'],
    ['update web to 1.1.0', 'workflow'],
    ['delete web', 'workflow'],
    ['uninstall web', 'workflow'],
    ['rollback web', 'workflow'],
    ['deploy shop', 'workflow'],
    ['hello', 'query'],
  ])('%s → %s', (text, route) => {
    expect(classifyHelmRequest(text)).toBe(route);
  });

  it('parses the grammar', () => {
    expect(parseHelmCommand('list releases in prod')).toEqual({ kind: 'list', namespace: 'prod' });
    expect(parseHelmCommand('install demo/webapp as web in staging version 1.0.0 set replicaCount=3 image.tag=1.2')).toEqual({
      kind: 'install',
      chart: 'demo/webapp',
      release: 'web',
      namespace: 'staging',
      version: '1.0.0',
      values: { replicaCount: 3, image: { tag: 1.2 } },
    });
    expect(parseHelmCommand('upgrade web to version 1.1.0 set service.port=8080')).toEqual({
      kind: 'upgrade',
      release: 'web',
      namespace: 'default',
      version: '1.1.0',
      values: { service: { port: 8080 } },
    });
    expect(parseHelmCommand('rollback web to 2')).toEqual({ kind: 'rollback', release: 'web', namespace: 'default', revision: 2 });
    expect(parseHelmCommand('uninstall web')).toEqual({ kind: 'uninstall', release: 'web', namespace: 'default' });
    expect(parseHelmCommand('install')).toBeUndefined();
    expect(parseHelmCommand('install webapp as')).toBeUndefined();
  });
});
